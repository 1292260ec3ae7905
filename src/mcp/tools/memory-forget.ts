import { z } from "zod";
import { invalid } from "../../errors";
import { memoryInput, memoryKey } from "../../memory/fields";
import { forgetMemory } from "../../memory/memories";
import { ANNOTATIONS, jsonResult, type RegisterTool, runTool } from "../tool-context";

export const register: RegisterTool = (server, mindContext) =>
  server.registerTool(
    "memory_forget",
    {
      description:
        "Delete a structured memory by its id (mem_…, from memory_search or memory_store), or by its key in your namespace " +
        "(every category, or only `category`). Give `id` or `key`. Its history is kept.",
      inputSchema: {
        id: z.string().trim().min(1).max(100).optional().describe("The memory's id (mem_…); an older client may put a key here too"),
        key: memoryKey.optional().describe("The memory's key, as memory_store was given it"),
        category: memoryInput.shape.category.optional().describe("With key: only the memory of this category"),
      },
      outputSchema: { forgotten: z.number().int().describe("How many memories were deleted") },
      annotations: ANNOTATIONS.deletes,
    },
    ({ id, key, category }) =>
      runTool(async () => {
        if ((id === undefined) === (key === undefined)) throw invalid("give either id or key");
        if (category !== undefined && key === undefined) throw invalid("category goes with key");
        const forgotten = await forgetMemory(mindContext, key !== undefined ? { key, category } : { id: id! });
        return jsonResult({ forgotten: forgotten.length });
      }),
  );
