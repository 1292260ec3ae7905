import { z } from "zod";
import { AppError } from "../../errors";
import { readCold, updateCold } from "../../notes/cold-memory";
import { COLD_MAX_CHARS, COLD_STORED_MAX_CHARS } from "../../notes/cold-store";
import { ANNOTATIONS, errorResult, jsonResult, type RegisterTool, runTool } from "../tool-context";

export const register: RegisterTool = (server, mindContext) =>
  server.registerTool(
    "update_memory",
    {
      description:
        "Replace the long-term memory document, only if it is still at `version` (the one get_memory returned). " +
        "If someone changed it since, nothing is written and you are told to call get_memory again and merge. " +
        "With consolidationId, the notes that consolidation claimed are deleted in the same write.",
      inputSchema: {
        text: z
          .string()
          .max(COLD_STORED_MAX_CHARS)
          .describe(
            `The whole new document: at most ${COLD_MAX_CHARS} characters, or up to ${COLD_STORED_MAX_CHARS} when it is no longer ` +
              "than the version it replaces or it closes a consolidation (with consolidationId)",
          ),
        version: z.number().int().min(0).describe("The version you read with get_memory"),
        consolidationId: z.string().trim().min(1).max(100).optional().describe("The consolidation whose notes this text folds in"),
      },
      outputSchema: { updated: z.literal(true), version: z.number().int(), folded_notes: z.number().int() },
      // Replaces the document; the same call again finds the version moved on and writes nothing.
      annotations: ANNOTATIONS.replaces,
    },
    ({ text, version, consolidationId }) =>
      runTool(async () => {
        try {
          const cold = await updateCold(mindContext, { text, version, consolidation_id: consolidationId });
          return jsonResult({ updated: true, version: cold.version, folded_notes: cold.folded_notes });
        } catch (err) {
          if (!(err instanceof AppError) || err.code !== "memory_changed") throw err;
          const current = await readCold(mindContext);
          return errorResult(
            `memory changed: the memory is now at version ${current.version}, not ${version}; nothing was written. ` +
              "Call get_memory again, merge your change into the current text, and retry update_memory with the new version.",
          );
        }
      }),
  );
