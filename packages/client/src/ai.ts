import { type Tool, tool } from "ai";
import { z } from "zod";
import { createEdgemind, type EdgemindClient, type EdgemindOptions } from "./client.js";
import { COMPACT_OUTPUT, type CompactOutput, compactContext, compactRecall, compactSearch, compactStored } from "./compact.js";
import { MEMORY_FIELDS, MEMORY_LIMITS } from "./generated/memory-shape.js";
import { ARGUMENT_DESCRIPTIONS as ARGS, TOOL_DESCRIPTIONS } from "./tool-descriptions.js";

// The values, bounds and defaults the API accepts, as the Worker's OpenAPI document declares
// them (generated): the tools check what the Worker would and say what it does.
const F = MEMORY_FIELDS;
const LIMITS = MEMORY_LIMITS;
const pattern = (source: string) => new RegExp(source);

const tagSchema = z
  .string()
  .trim()
  .min(F.tags.items.minLength)
  .max(F.tags.items.maxLength)
  .regex(pattern(F.tags.items.pattern), "a tag cannot contain a comma");

/** A point in time a read asks about, as the Worker takes it: ISO 8601, or a date. */
const asOfSchema = z.union([z.iso.datetime({ offset: true }), z.iso.date()]);

const searchInput = z.object({
  q: z.string().trim().min(1).max(500).describe(ARGS.memory_search.q),
  tag: tagSchema.optional().describe(ARGS.memory_search.tag),
  category: z.enum(F.category.enum).optional(),
  limit: z.number().int().min(1).max(LIMITS.search.max).optional().describe(ARGS.memory_search.limit),
  as_of: asOfSchema.optional().describe(ARGS.memory_search.as_of),
  include_superseded: z.boolean().optional().describe(ARGS.memory_search.include_superseded),
});

const storeInput = z.object({
  category: z.enum(F.category.enum),
  key: z.string().max(F.key.maxLength).regex(pattern(F.key.pattern), "key must be snake_case: lower-case letters and digits joined by '_'").describe(ARGS.memory_store.key),
  content: z.string().trim().min(F.content.minLength).max(F.content.maxLength).describe(F.content.description),
  tags: z.array(tagSchema).max(F.tags.maxItems).optional().describe(ARGS.memory_store.tags),
  priority: z.enum(F.priority.enum).optional(),
  confidence: z.number().min(F.confidence.minimum).max(F.confidence.maximum).optional().describe(F.confidence.description),
  expires_at: z.iso.datetime({ offset: true }).nullable().optional().describe(ARGS.memory_store.expires_at),
  context: z.string().max(F.context.maxLength).optional().describe(ARGS.memory_store.context),
  observed_at: z.iso.datetime({ offset: true }).optional().describe(F.observed_at.description),
  supersedes: z.string().trim().min(F.supersedes.minLength).max(F.supersedes.maxLength).optional().describe(F.supersedes.description),
});

const recallInput = z.object({
  limit: z.number().int().min(1).max(LIMITS.recall.max).optional().describe(ARGS.memory_recall.limit),
  category: z.enum(F.category.enum).optional(),
  max_tokens: z.number().int().min(LIMITS.recall_tokens.min).max(LIMITS.recall_tokens.max).optional(),
  as_of: asOfSchema.optional().describe(ARGS.memory_recall.as_of),
  include_superseded: z.boolean().optional().describe(ARGS.memory_recall.include_superseded),
});

const contextInput = z.object({
  sessionId: z.string().trim().min(1).max(100).describe(ARGS.session_context.sessionId),
  q: z.string().trim().max(2000).optional().describe(ARGS.session_context.q),
  max_tokens: z.number().int().min(300).max(32_000).optional().describe(ARGS.session_context.max_tokens),
  as_of: asOfSchema.optional().describe(ARGS.session_context.as_of),
  include_superseded: z.boolean().optional().describe(ARGS.session_context.include_superseded),
});

/** The REST query a tool's `include_superseded` stands for. */
const superseded = (include: boolean | undefined) => (include ? { include: "superseded" as const } : {});

/**
 * An AI SDK tool that always runs here. Written with `ai`'s own Tool type so the declarations
 * name only `ai` and `zod`, not the packages `ai` is built from.
 */
export type EdgemindTool<INPUT, OUTPUT> = Tool<INPUT, OUTPUT> & { execute: NonNullable<Tool<INPUT, OUTPUT>["execute"]> };

/** A type, not an interface: `ToolSet` takes it only with the index signature a type has implicitly. */
export type EdgemindTools = {
  memory_search: EdgemindTool<z.infer<typeof searchInput>, CompactOutput["memory_search"]>;
  memory_store: EdgemindTool<z.infer<typeof storeInput>, CompactOutput["memory_store"]>;
  memory_recall: EdgemindTool<z.infer<typeof recallInput>, CompactOutput["memory_recall"]>;
  session_context: EdgemindTool<z.infer<typeof contextInput>, CompactOutput["session_context"]>;
};

/**
 * edgemind's memory tools for the Vercel AI SDK, named, described and answering as the MCP
 * server's (compact answers for a model: src/compact.ts): spread them into `tools` of
 * `generateText` or `streamText`. Give the Worker's url and a key, or a client made with
 * createEdgemind (its bookmarks then carry across both).
 */
export function edgemindTools(from: EdgemindOptions | EdgemindClient): EdgemindTools {
  const client = "memory" in from ? from : createEdgemind(from);
  return {
    memory_search: tool({
      description: TOOL_DESCRIPTIONS.memory_search,
      inputSchema: searchInput,
      outputSchema: COMPACT_OUTPUT.memory_search,
      execute: async ({ q, tag, category, limit, as_of, include_superseded }) =>
        compactSearch(await client.memory.search(q, { tag, category, limit: limit ?? LIMITS.search.default, as_of, ...superseded(include_superseded) })),
    }),
    memory_store: tool({
      description: TOOL_DESCRIPTIONS.memory_store,
      inputSchema: storeInput,
      outputSchema: COMPACT_OUTPUT.memory_store,
      execute: async (input) => compactStored(await client.memory.store(input)),
    }),
    memory_recall: tool({
      description: TOOL_DESCRIPTIONS.memory_recall,
      inputSchema: recallInput,
      outputSchema: COMPACT_OUTPUT.memory_recall,
      execute: async ({ limit, category, max_tokens, as_of, include_superseded }) =>
        compactRecall(await client.memory.recall({ limit: limit ?? LIMITS.recall.default, category, max_tokens, as_of, ...superseded(include_superseded) })),
    }),
    session_context: tool({
      description: TOOL_DESCRIPTIONS.session_context,
      inputSchema: contextInput,
      outputSchema: COMPACT_OUTPUT.session_context,
      execute: async ({ sessionId, q, max_tokens, as_of, include_superseded }) =>
        compactContext(await client.sessions.context(sessionId, { q, max_tokens, as_of, ...superseded(include_superseded) })),
    }),
  };
}

