import { z } from "zod";
import { jsonResult, runTool, type RegisterTool } from "../context";
import { sessionContext } from "../session-context";

export const register: RegisterTool = (server, { deps, scope }) =>
  server.registerTool(
    "session_context",
    {
      description:
        "The context to work with in a session: the long-term memory document and the session's recent conversation " +
        "(its last non-ephemeral messages, oldest first), as one text and as parts.",
      inputSchema: { sessionId: z.string().trim().min(1).max(100).describe("The session's id, ses_…") },
    },
    ({ sessionId }) =>
      runTool(async () => {
        const context = await sessionContext(deps, scope, sessionId);
        return jsonResult(context, context.text || "(no memory and no messages yet)");
      }),
  );
