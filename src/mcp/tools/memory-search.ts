import { COMPACT_OUTPUT, compactSearch } from "@edgemind/client/compact";
import { ARGUMENT_DESCRIPTIONS, TOOL_DESCRIPTIONS } from "@edgemind/client/tool-descriptions";
import { z } from "zod";
import { asOfArgument, countWithin, memoryInput, memoryTag, searchQuery } from "../../memory/fields";
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
        as_of: asOfArgument.optional().describe(ARGUMENT_DESCRIPTIONS.memory_search.as_of),
        include_superseded: z.boolean().optional().describe(ARGUMENT_DESCRIPTIONS.memory_search.include_superseded),
      },
      outputSchema: COMPACT_OUTPUT.memory_search,
      annotations: ANNOTATIONS.reads,
    },
    ({ q, tag, category, limit, as_of, include_superseded }) =>
      runTool(async () => {
        const options = { q, tag, category, limit: limit ?? SEARCH_LIMIT.default, asOf: as_of, includeSuperseded: include_superseded };
        const { hits } = await retrieveMemories(mindContext, options);
        return jsonResult(compactSearch({ results: hits.map(({ memory, score }) => ({ ...memory, score })) }));
      }),
  );
