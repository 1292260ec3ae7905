import { z } from "zod";
import { storeMemory } from "../../memory/memories";
import { isoDateTime, memoryContent, memoryContext, memoryKey, memoryTags } from "../../memory/fields";
import { CATEGORIES, PRIORITIES } from "../../memory/model";
import { jsonResult, runTool, type RegisterTool } from "../tool-context";
import { ARGUMENT_DESCRIPTIONS, TOOL_DESCRIPTIONS } from "../../../packages/client/src/tool-descriptions";

export const register: RegisterTool = (server, ctx) =>
  server.registerTool(
    "memory_store",
    {
      description: TOOL_DESCRIPTIONS.memory_store,
      inputSchema: {
        category: z.enum(CATEGORIES),
        key: memoryKey.describe(ARGUMENT_DESCRIPTIONS.memory_store.key),
        content: memoryContent,
        tags: memoryTags.optional().describe(ARGUMENT_DESCRIPTIONS.memory_store.tags),
        priority: z.enum(PRIORITIES).optional(),
        confidence: z.number().min(0).max(1).optional(),
        expires_at: isoDateTime.optional().describe(ARGUMENT_DESCRIPTIONS.memory_store.expires_at),
        context: memoryContext
          .optional()
          .describe(ARGUMENT_DESCRIPTIONS.memory_store.context),
      },
    },
    (input) =>
      runTool(async () => {
        const expires = input.expires_at === undefined ? undefined : new Date(input.expires_at).toISOString();
        const { memory, created } = await storeMemory(ctx, { ...input, expires_at: expires });
        return jsonResult({ created, memory });
      }),
  );
