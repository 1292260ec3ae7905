import { z } from "zod";
import { forgetMemory } from "../../memory/memories";
import { jsonResult, runTool, type RegisterTool } from "../context";

export const register: RegisterTool = (server, ctx) =>
  server.registerTool(
    "memory_forget",
    {
      description: "Delete a structured memory by its id (mem_…, from memory_search or memory_store) or by its key. Its history is kept.",
      inputSchema: { id: z.string().trim().min(1).max(100).describe("The memory's id (mem_…) or its key") },
    },
    ({ id }) =>
      runTool(async () => {
        const forgotten = await forgetMemory(ctx, id);
        return jsonResult({ forgotten: forgotten.map((m) => m.id) });
      }),
  );
