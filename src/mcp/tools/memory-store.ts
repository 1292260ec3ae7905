import { storeMemory } from "../../memory/memories";
import { memoryStoreInput } from "../../memory/fields";
import { jsonResult, runTool, type RegisterTool } from "../tool-context";
import { TOOL_DESCRIPTIONS } from "@edgemind/client/tool-descriptions";

export const register: RegisterTool = (server, ctx) =>
  server.registerTool(
    "memory_store",
    { description: TOOL_DESCRIPTIONS.memory_store, inputSchema: memoryStoreInput.shape },
    (input) =>
      runTool(async () => {
        const { memory, created } = await storeMemory(ctx, input);
        return jsonResult({ created, memory });
      }),
  );
