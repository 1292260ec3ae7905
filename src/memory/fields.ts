import { z } from "zod";
import { MAX_CONTEXT_CHARS, MEMORY_CONTENT_MAX, MEMORY_KEY_MAX, MEMORY_KEY_PATTERN, TAG_MAX, TAGS_MAX } from "./model";

// A memory's fields as every front accepts them (REST, MCP, the archive, the web UI's form).

export const memoryKey = z
  .string()
  .max(MEMORY_KEY_MAX)
  .regex(MEMORY_KEY_PATTERN, "key must be snake_case: lower-case letters and digits joined by '_'");
export const memoryContent = z.string().trim().min(1).max(MEMORY_CONTENT_MAX);
export const memoryTag = z.string().trim().min(1).max(TAG_MAX).regex(/^[^,]+$/, "a tag cannot contain a comma");
export const memoryTags = z.array(memoryTag).max(TAGS_MAX);
export const memoryContext = z.string().max(MAX_CONTEXT_CHARS);
