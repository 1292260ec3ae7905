import { readCold } from "../../notes/cold-memory";
import { jsonResult, type RegisterTool, runTool } from "../tool-context";

export const register: RegisterTool = (server, mindContext) =>
  server.registerTool(
    "get_memory",
    {
      description:
        "Read the long-term memory document (cold memory) and its version. " +
        "Pass that version to update_memory; an empty document has version 0.",
      inputSchema: {},
    },
    () =>
      runTool(async () => {
        const cold = await readCold(mindContext);
        return jsonResult({ text: cold.text, version: cold.version, updated_at: cold.updated_at });
      }),
  );
