import { TOOL_DESCRIPTIONS } from "@edgemind/client/tool-descriptions";
import { memoryStoreInput } from "../../memory/fields";
import { storeMemory } from "../../memory/memories";
import { jsonResult, type RegisterTool, runTool } from "../tool-context";

export const register: RegisterTool = (server, mindContext) =>
  server.registerTool(
    "memory_store",
    { description: TOOL_DESCRIPTIONS.memory_store, inputSchema: memoryStoreInput.shape },
    (input) =>
      runTool(async () => {
        const { memory, created } = await storeMemory(mindContext, input);
        return jsonResult({ created, memory });
      }),
  );
