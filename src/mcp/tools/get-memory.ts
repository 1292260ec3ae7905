import { shortDate } from "@edgemind/client/compact";
import { z } from "zod";
import { readCold } from "../../notes/cold-memory";
import { ANNOTATIONS, jsonResult, type RegisterTool, runTool } from "../tool-context";

export const register: RegisterTool = (server, mindContext) =>
  server.registerTool(
    "get_memory",
    {
      description:
        "Read the long-term memory document (cold memory) and its version. " +
        "Pass that version to update_memory; an empty document has version 0.",
      inputSchema: {},
      outputSchema: {
        text: z.string(),
        version: z.number().int().describe("For update_memory"),
        updated: z.string().optional().describe("UTC, to the minute: 2026-12-06T10:11Z"),
      },
      annotations: ANNOTATIONS.reads,
    },
    () =>
      runTool(async () => {
        const cold = await readCold(mindContext);
        return jsonResult({ text: cold.text, version: cold.version, ...(cold.updated_at !== null && { updated: shortDate(cold.updated_at) }) });
      }),
  );
