import { COMPACT_OUTPUT, compactStored } from "@edgemind/client/compact";
import { TOOL_DESCRIPTIONS } from "@edgemind/client/tool-descriptions";
import { memoryStoreInput } from "../../memory/fields";
import { storeMemory } from "../../memory/memories";
import { ANNOTATIONS, jsonResult, type RegisterTool, runTool } from "../tool-context";

export const register: RegisterTool = (server, mindContext) =>
  server.registerTool(
    "memory_store",
    {
      description: TOOL_DESCRIPTIONS.memory_store,
      inputSchema: memoryStoreInput.shape,
      outputSchema: COMPACT_OUTPUT.memory_store,
      // An upsert: the same category and key replace what was stored under them.
      annotations: ANNOTATIONS.replaces,
    },
    (input) =>
      runTool(async () => {
        return jsonResult(compactStored(await storeMemory(mindContext, input)));
      }),
  );
