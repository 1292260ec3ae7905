import { tool } from "ai";
import { z } from "zod";
import { createEdgemind, type EdgemindClient, type EdgemindOptions } from "./client.js";
import { ARGUMENT_DESCRIPTIONS as ARGS, TOOL_DESCRIPTIONS } from "./tool-descriptions.js";
import type { Memory } from "./types.js";

// The values the API accepts, checked against the generated types: a category or priority
// added to the routes and missing here fails the package's type check.
const CATEGORIES = ["identity", "preference", "fact", "project", "skill", "mistake", "context", "note"] as const satisfies readonly Memory["category"][];
const PRIORITIES = ["low", "normal", "high", "critical"] as const satisfies readonly Memory["priority"][];
type Exhaustive<All, Listed> = [Exclude<All, Listed>] extends [never] ? true : false;
const everyCategory: Exhaustive<Memory["category"], (typeof CATEGORIES)[number]> = true;
const everyPriority: Exhaustive<Memory["priority"], (typeof PRIORITIES)[number]> = true;
void [everyCategory, everyPriority];

const tagSchema = z.string().trim().min(1).max(40).regex(/^[^,]+$/, "a tag cannot contain a comma");

const searchInput = z.object({
  q: z.string().trim().min(1).max(500).describe(ARGS.memory_search.q),
  tag: tagSchema.optional().describe(ARGS.memory_search.tag),
  category: z.enum(CATEGORIES).optional(),
  limit: z.number().int().min(1).max(100).optional().describe(ARGS.memory_search.limit),
});

const storeInput = z.object({
  category: z.enum(CATEGORIES),
  key: z.string().max(100).regex(/^[a-z0-9]+(_[a-z0-9]+)*$/, "key must be snake_case: lower-case letters and digits joined by '_'").describe(ARGS.memory_store.key),
  content: z.string().trim().min(1).max(8000),
  tags: z.array(tagSchema).max(10).optional().describe(ARGS.memory_store.tags),
  priority: z.enum(PRIORITIES).optional(),
  confidence: z.number().min(0).max(1).optional(),
  expires_at: z.iso.datetime({ offset: true }).optional().describe(ARGS.memory_store.expires_at),
  context: z.string().max(4000).optional().describe(ARGS.memory_store.context),
});

const recallInput = z.object({
  limit: z.number().int().min(1).max(500).optional().describe(ARGS.memory_recall.limit),
  category: z.enum(CATEGORIES).optional(),
  max_tokens: z.number().int().min(50).max(100_000).optional(),
});

const contextInput = z.object({
  sessionId: z.string().trim().min(1).max(100).describe(ARGS.session_context.sessionId),
  q: z.string().trim().max(2000).optional().describe(ARGS.session_context.q),
  max_tokens: z.number().int().min(300).max(32_000).optional().describe(ARGS.session_context.max_tokens),
});

/**
 * edgemind's memory tools for the Vercel AI SDK, named and described as the MCP server's:
 * spread them into `tools` of `generateText` or `streamText`. Give the Worker's url and a key,
 * or a client made with createEdgemind (its bookmarks then carry across both).
 */
export function edgemindTools(from: EdgemindOptions | EdgemindClient) {
  const client = "memory" in from ? from : createEdgemind(from);
  return {
    memory_search: tool({
      description: TOOL_DESCRIPTIONS.memory_search,
      inputSchema: searchInput,
      execute: ({ q, tag, category, limit }) => client.memory.search(q, { tag, category, limit: limit ?? 10 }),
    }),
    memory_store: tool({
      description: TOOL_DESCRIPTIONS.memory_store,
      inputSchema: storeInput,
      execute: async (input) => {
        const { memory, created } = await client.memory.store(input);
        return { created, memory };
      },
    }),
    memory_recall: tool({
      description: TOOL_DESCRIPTIONS.memory_recall,
      inputSchema: recallInput,
      execute: ({ limit, category, max_tokens }) => client.memory.recall({ limit: limit ?? 100, category, max_tokens }),
    }),
    session_context: tool({
      description: TOOL_DESCRIPTIONS.session_context,
      inputSchema: contextInput,
      execute: ({ sessionId, q, max_tokens }) => client.sessions.context(sessionId, { q, max_tokens }),
    }),
  };
}

export type EdgemindTools = ReturnType<typeof edgemindTools>;
