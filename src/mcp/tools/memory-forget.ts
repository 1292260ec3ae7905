import { z } from "zod";
import { deleteMemory } from "../../memory/memories";
import { jsonResult, runTool, type RegisterTool } from "../context";

export const register: RegisterTool = (server, { deps, scope }) =>
  server.registerTool(
    "memory_forget",
    {
      description: "Delete a structured memory by its id (from memory_search or memory_store). Its history is kept.",
      inputSchema: { id: z.string().trim().min(1).max(100).describe("The memory's id, mem_…") },
    },
    ({ id }) =>
      runTool(async () => {
        await deleteMemory(deps, scope, id);
        return jsonResult({ forgotten: id });
      }),
  );
