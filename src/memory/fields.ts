import { z } from "zod";
import type { CountLimit } from "./limits";

// The one shape of a memory: its fields with their bounds and descriptions, the memory as
// stored and shown, and what a write may give. REST (and its OpenAPI document), the MCP tools,
// the archive's lines and the web UI's form derive their schemas from these with pick, omit,
// extend and partial; the client package reads the same bounds from the OpenAPI document.

export const CATEGORIES = ["identity", "preference", "fact", "project", "skill", "mistake", "context", "note"] as const;
export type Category = (typeof CATEGORIES)[number];

/** Lowest first, so an index is also a rank. */
export const PRIORITIES = ["low", "normal", "high", "critical"] as const;

/** Longest context a memory or a note keeps (characters); longer text is cut at a word. */
export const MAX_CONTEXT_CHARS = 4000;

export const SOURCES = ["user", "agent"] as const;

/** A memory's stable key: snake_case, at most MEMORY_KEY_MAX characters. */
export const MEMORY_KEY_PATTERN = /^[a-z0-9]+(_[a-z0-9]+)*$/;
export const MEMORY_KEY_MAX = 100;
export const MEMORY_CONTENT_MAX = 8000;
export const TAG_MAX = 40;
export const TAGS_MAX = 10;
export type Source = (typeof SOURCES)[number];

/** An ISO 8601 date-time, stored normalised to UTC. */
export const isoDateTime = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value).toISOString());
/** A date-time as stored and exported (ISO 8601 with an offset). */
const storedDateTime = z.iso.datetime({ offset: true });

export const memoryKey = z
  .string()
  .max(MEMORY_KEY_MAX)
  .regex(MEMORY_KEY_PATTERN, "key must be snake_case: lower-case letters and digits joined by '_'")
  .describe("Stable snake_case key, e.g. coffee_order");
export const memoryContent = z.string().trim().min(1).max(MEMORY_CONTENT_MAX).describe("The memory itself, one self-contained statement");
export const memoryTag = z.string().trim().min(1).max(TAG_MAX).regex(/^[^,]+$/, "a tag cannot contain a comma");
export const memoryTags = z.array(memoryTag).max(TAGS_MAX).describe("2–5 short tags; stored lower-case, matched whole");
/** When a memory was stated; a write may say so, never later than now. */
export const memoryObservedAt = isoDateTime.describe(
  "When it was stated (ISO 8601), e.g. the date of the message it came from; default: the time of the write",
);
/** A memory a write replaces, by its key (in the writer's namespace) or its id. */
export const memorySupersedes = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .describe("The key or id (mem_…) of a memory this one replaces: it stays readable as replaced (include=superseded), valid until this one");
/**
 * A read's point in time, ISO 8601 or a date such as 2023-05-21 (its end): what was valid then.
 * REST reads it from the query; the tools take the same argument.
 */
export const asOfArgument = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .transform((value) => new Date(value.length === 10 ? `${value}T23:59:59.999Z` : value).toISOString());
export const asOfQuery = asOfArgument.describe("Show what was valid at this time (ISO 8601, or a date: its end) instead of now");

export const memoryContext = z
  .string()
  .max(MAX_CONTEXT_CHARS)
  .describe("Where it came from (the dialogue around it, a document section, the date): helps search find it; not shown as its content");

/** The fields a caller writes: every front accepts exactly these, within these bounds. */
export const memoryInput = z.object({
  category: z.enum(CATEGORIES),
  key: memoryKey,
  content: memoryContent,
  tags: memoryTags,
  priority: z.enum(PRIORITIES),
  confidence: z.number().min(0).max(1).describe("How sure the writer is, 0 to 1"),
  expires_at: isoDateTime.nullable().describe("ISO 8601; the memory is hidden after it"),
  context: memoryContext,
  observed_at: memoryObservedAt,
  supersedes: memorySupersedes,
});
/** What a write may leave out: everything but category, key and content (the server fills in the rest). */
export const memoryStoreInput = memoryInput.partial({
  tags: true,
  priority: true,
  confidence: true,
  expires_at: true,
  context: true,
  observed_at: true,
  supersedes: true,
});
/** What a change may give: any of the fields a memory's (category, key) leaves free. */
export const memoryPatchInput = memoryInput.omit({ category: true, key: true }).partial();

export type MemoryInput = z.output<typeof memoryStoreInput>;
export type MemoryPatch = z.output<typeof memoryPatchInput>;

const { category, key, tags, priority, confidence } = memoryInput.shape;

/** A memory as stored, shown by every front and written to an archive. */
export const memoryRecord = z.object({
  id: z.string().min(1).max(100),
  mind_id: z.string(),
  agent: z.string(),
  category,
  key,
  content: z.string().min(1).max(MEMORY_CONTENT_MAX).describe(memoryContent.description ?? ""),
  tags,
  priority,
  source: z.enum(SOURCES).describe("user: a person wrote it; agent: an agent did"),
  verified: z.boolean().describe("A person wrote or confirmed it"),
  confidence,
  expires_at: storedDateTime.nullable(),
  created_at: storedDateTime,
  updated_at: storedDateTime,
  observed_at: storedDateTime.describe("When it was stated: the writer's time unless it said otherwise (a dated chat, an import)"),
  valid_from: storedDateTime.describe("From when it holds"),
  valid_until: storedDateTime.nullable().describe("Until when it held; null while it is current"),
  superseded_by: z.string().nullable().describe("The memory that replaced it; null while it is current"),
  context: memoryContext.optional().describe("Where the memory came from; only when asked for (include=context), never as its content"),
});

/** A count a caller may give (see limits.ts); each front adds the default where it fills one in. */
export const countWithin = (limit: CountLimit) => z.number().int().min(1).max(limit.max);

/** The words a search looks for (memories, notes, a session's messages). */
export const searchQuery = z.string().trim().min(1, "q must not be empty").max(500);
/** The message a context is assembled for: memory related to it is searched. */
export const contextQuery = z.string().trim().max(2000);
