import { COMPACT_OUTPUT, compactSearch } from "@edgemind/client/compact";
import { ARGUMENT_DESCRIPTIONS, TOOL_DESCRIPTIONS } from "@edgemind/client/tool-descriptions";
import { countWithin, memoryInput, memoryTag, searchQuery } from "../../memory/fields";
import { retrieveMemories } from "../../memory/hybrid-search";
import { SEARCH_LIMIT } from "../../memory/limits";
import { ANNOTATIONS, jsonResult, type RegisterTool, runTool } from "../tool-context";

export const register: RegisterTool = (server, mindContext) =>
  server.registerTool(
    "memory_search",
    {
      description: TOOL_DESCRIPTIONS.memory_search,
      inputSchema: {
        q: searchQuery.describe(ARGUMENT_DESCRIPTIONS.memory_search.q),
        tag: memoryTag.optional().describe(ARGUMENT_DESCRIPTIONS.memory_search.tag),
        category: memoryInput.shape.category.optional(),
        limit: countWithin(SEARCH_LIMIT).optional().describe(ARGUMENT_DESCRIPTIONS.memory_search.limit),
      },
      outputSchema: COMPACT_OUTPUT.memory_search,
      annotations: ANNOTATIONS.reads,
    },
    ({ q, tag, category, limit }) =>
      runTool(async () => {
        const { hits } = await retrieveMemories(mindContext, { q, tag, category, limit: limit ?? SEARCH_LIMIT.default });
        return jsonResult(compactSearch({ results: hits.map(({ memory, score }) => ({ ...memory, score })) }));
      }),
  );
