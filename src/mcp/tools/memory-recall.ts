import { COMPACT_OUTPUT, compactRecall } from "@edgemind/client/compact";
import { ARGUMENT_DESCRIPTIONS, TOOL_DESCRIPTIONS } from "@edgemind/client/tool-descriptions";
import { z } from "zod";
import { asOfArgument, countWithin, memoryInput } from "../../memory/fields";
import { RECALL_LIMIT, RECALL_TOKENS } from "../../memory/limits";
import { recallMemories } from "../../memory/recall";
import { ANNOTATIONS, jsonResult, type RegisterTool, runTool } from "../tool-context";

export const register: RegisterTool = (server, mindContext) =>
  server.registerTool(
    "memory_recall",
    {
      description: TOOL_DESCRIPTIONS.memory_recall,
      inputSchema: {
        limit: countWithin(RECALL_LIMIT).optional().describe(ARGUMENT_DESCRIPTIONS.memory_recall.limit),
        category: memoryInput.shape.category.optional(),
        max_tokens: z.number().int().min(RECALL_TOKENS.min).max(RECALL_TOKENS.max).optional(),
        as_of: asOfArgument.optional().describe(ARGUMENT_DESCRIPTIONS.memory_recall.as_of),
        include_superseded: z.boolean().optional().describe(ARGUMENT_DESCRIPTIONS.memory_recall.include_superseded),
      },
      outputSchema: COMPACT_OUTPUT.memory_recall,
      annotations: ANNOTATIONS.reads,
    },
    ({ limit, category, max_tokens, as_of, include_superseded }) =>
      runTool(async () => {
        const options = { limit: limit ?? RECALL_LIMIT.default, category, maxTokens: max_tokens, asOf: as_of, includeSuperseded: include_superseded };
        const recall = await recallMemories(mindContext, options);
        // The recall's own text is what a model reads: it is already written for one.
        return jsonResult(compactRecall(recall), recall.text);
      }),
  );
