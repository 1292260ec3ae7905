import { z } from "zod";
import { MAX_CONTEXT_CHARS, MEMORY_CONTENT_MAX, MEMORY_KEY_MAX, MEMORY_KEY_PATTERN, TAG_MAX, TAGS_MAX } from "./model";

// A memory's fields, and the words memory is searched with, as every front accepts them (REST,
// MCP, the archive, the web UI's form).

export const memoryKey = z
  .string()
  .max(MEMORY_KEY_MAX)
  .regex(MEMORY_KEY_PATTERN, "key must be snake_case: lower-case letters and digits joined by '_'");
export const memoryContent = z.string().trim().min(1).max(MEMORY_CONTENT_MAX);
export const memoryTag = z.string().trim().min(1).max(TAG_MAX).regex(/^[^,]+$/, "a tag cannot contain a comma");
export const memoryTags = z.array(memoryTag).max(TAGS_MAX);
export const memoryContext = z.string().max(MAX_CONTEXT_CHARS);

/** An ISO 8601 date-time, stored normalised to UTC. */
export const isoDateTime = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value).toISOString());

/** The words a search looks for (memories, notes, a session's messages). */
export const searchQuery = z.string().trim().min(1, "q must not be empty").max(500);
/** The message a context is assembled for: memory related to it is searched. */
export const contextQuery = z.string().trim().max(2000);
