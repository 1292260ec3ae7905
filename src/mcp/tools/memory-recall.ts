import { z } from "zod";
import { CATEGORIES } from "../../memory/model";
import { recallMemories } from "../../memory/recall";
import { jsonResult, runTool, type RegisterTool } from "../tool-context";
import { ARGUMENT_DESCRIPTIONS, TOOL_DESCRIPTIONS } from "../../../packages/client/src/tool-descriptions";

export const register: RegisterTool = (server, ctx) =>
  server.registerTool(
    "memory_recall",
    {
      description: TOOL_DESCRIPTIONS.memory_recall,
      inputSchema: {
        limit: z.number().int().min(1).max(500).optional().describe(ARGUMENT_DESCRIPTIONS.memory_recall.limit),
        category: z.enum(CATEGORIES).optional(),
        max_tokens: z.number().int().min(50).max(100_000).optional(),
      },
    },
    ({ limit, category, max_tokens }) =>
      runTool(async () => {
        const recall = await recallMemories(ctx, { limit: limit ?? 100, category, maxTokens: max_tokens });
        return jsonResult({ count: recall.memories.length, tokens: recall.tokens, text: recall.text }, recall.text);
      }),
  );
