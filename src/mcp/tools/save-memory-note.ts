import { z } from "zod";
import { MAX_CONTEXT_CHARS } from "../../memory/rows";
import { addNote } from "../../notes/notes";
import { ANNOTATIONS, jsonResult, type RegisterTool, runTool } from "../tool-context";

export const register: RegisterTool = (server, mindContext) =>
  server.registerTool(
    "save_memory_note",
    {
      description:
        "Save one self-contained fact about the user or the work as a note (for example a preference, a correction or a decision). " +
        "Notes are appended, never overwritten, and folded into the long-term memory document (see get_memory) by the hourly consolidation.",
      inputSchema: {
        text: z.string().trim().min(1).max(2000).describe("One fact, understandable without the conversation around it"),
        sessionId: z.string().trim().min(1).max(100).optional().describe("The session the fact was heard in, if any"),
        context: z
          .string()
          .max(MAX_CONTEXT_CHARS)
          .optional()
          .describe("Where it came from (the lines of dialogue around it, a document section): helps search find it; not part of the fact"),
      },
      outputSchema: { saved: z.literal(true) },
      annotations: ANNOTATIONS.appends,
    },
    ({ text, sessionId, context }) =>
      runTool(async () => {
        // The note's id and fields are nothing a model can use: no tool takes a note.
        await addNote(mindContext, { text, session_id: sessionId, context });
        return jsonResult({ saved: true });
      }),
  );
