import { z } from "zod";
import { storeMemory } from "../../memory/memories";
import { CATEGORIES, MAX_CONTEXT_CHARS, MEMORY_CONTENT_MAX, MEMORY_KEY_MAX, MEMORY_KEY_PATTERN, PRIORITIES, TAG_MAX, TAGS_MAX } from "../../memory/model";
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
        key: z
          .string()
          .max(MEMORY_KEY_MAX)
          .regex(MEMORY_KEY_PATTERN, "key must be snake_case")
          .describe("Stable snake_case key, e.g. coffee_order"),
        content: z.string().trim().min(1).max(MEMORY_CONTENT_MAX),
        tags: z.array(z.string().trim().min(1).max(TAG_MAX).regex(/^[^,]+$/)).max(TAGS_MAX).optional().describe("2–5 short tags"),
        priority: z.enum(PRIORITIES).optional(),
        confidence: z.number().min(0).max(1).optional(),
        expires_at: z.iso.datetime({ offset: true }).optional().describe("ISO 8601; the memory is hidden after it"),
        context: z
          .string()
          .max(MAX_CONTEXT_CHARS)
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
