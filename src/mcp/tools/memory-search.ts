import { z } from "zod";
import { memoryTag, searchQuery } from "../../memory/fields";
import { CATEGORIES } from "../../memory/model";
import { retrieveMemories } from "../../memory/hybrid-search";
import { jsonResult, runTool, type RegisterTool } from "../context";

export const register: RegisterTool = (server, ctx) =>
  server.registerTool(
    "memory_search",
    {
      description:
        "Full-text search over structured memories (key, content, tags), Russian and English word forms matched, " +
        "best first. Returns each memory's id for memory_forget.",
      inputSchema: {
        q: searchQuery.describe("Words to look for"),
        tag: memoryTag.optional().describe("Only memories carrying this whole tag"),
        category: z.enum(CATEGORIES).optional(),
        limit: z.number().int().min(1).max(100).optional().describe("Default 10"),
      },
    },
    ({ q, tag, category, limit }) =>
      runTool(async () => {
        const { hits, retrieval } = await retrieveMemories(ctx, { q, tag, category, limit: limit ?? 10 });
        return jsonResult({ results: hits.map(({ memory, score }) => ({ ...memory, score })), retrieval });
      }),
  );
