import { z } from "zod";
import { storeMemory } from "../../memory/memories";
import { isoDateTime, memoryContent, memoryContext, memoryKey, memoryTags } from "../../memory/fields";
import { CATEGORIES, PRIORITIES } from "../../memory/model";
import { jsonResult, runTool, type RegisterTool } from "../context";

export const register: RegisterTool = (server, ctx) =>
  server.registerTool(
    "memory_store",
    {
      description:
        "Store a structured memory under a stable (category, key); storing the same category and key again updates it in place. " +
        "Your memories are unverified until a person verifies them.",
      inputSchema: {
        category: z.enum(CATEGORIES),
        key: memoryKey.describe("Stable snake_case key, e.g. coffee_order"),
        content: memoryContent,
        tags: memoryTags.optional().describe("2–5 short tags"),
        priority: z.enum(PRIORITIES).optional(),
        confidence: z.number().min(0).max(1).optional(),
        expires_at: isoDateTime.optional().describe("ISO 8601; the memory is hidden after it"),
        context: memoryContext
          .optional()
          .describe("Where it came from (the dialogue around it, a document section, the date): helps search find it; not shown as its content"),
      },
    },
    (input) =>
      runTool(async () => {
        const expires = input.expires_at === undefined ? undefined : new Date(input.expires_at).toISOString();
        const { memory, created } = await storeMemory(ctx, { ...input, expires_at: expires });
        return jsonResult({ created, memory });
      }),
  );
