import { z } from "zod";
import { memoryTag, searchQuery } from "../../memory/fields";
import { CATEGORIES } from "../../memory/model";
import { retrieveMemories } from "../../memory/hybrid-search";
import { jsonResult, runTool, type RegisterTool } from "../tool-context";
import { ARGUMENT_DESCRIPTIONS, TOOL_DESCRIPTIONS } from "../../../packages/client/src/tool-descriptions";

export const register: RegisterTool = (server, ctx) =>
  server.registerTool(
    "memory_search",
    {
      description: TOOL_DESCRIPTIONS.memory_search,
      inputSchema: {
        q: searchQuery.describe(ARGUMENT_DESCRIPTIONS.memory_search.q),
        tag: memoryTag.optional().describe(ARGUMENT_DESCRIPTIONS.memory_search.tag),
        category: z.enum(CATEGORIES).optional(),
        limit: z.number().int().min(1).max(100).optional().describe(ARGUMENT_DESCRIPTIONS.memory_search.limit),
      },
    },
    ({ q, tag, category, limit }) =>
      runTool(async () => {
        const { hits, retrieval } = await retrieveMemories(ctx, { q, tag, category, limit: limit ?? 10 });
        return jsonResult({ results: hits.map(({ memory, score }) => ({ ...memory, score })), retrieval });
      }),
  );
