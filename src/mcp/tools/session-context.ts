import { z } from "zod";
import { contextQuery } from "../../memory/fields";
import { assembleContext, MAX_CONTEXT_TOKENS, MIN_CONTEXT_TOKENS } from "../../sessions/context";
import { jsonResult, runTool, type RegisterTool } from "../context";

export const register: RegisterTool = (server, ctx) =>
  server.registerTool(
    "session_context",
    {
      description:
        "The context to answer with in a session, as edgemind assembles it for every model turn: the session's recent " +
        "conversation, memories and notes matching `q`, recalled memories and the cold memory document, deduplicated and " +
        "fitted to `max_tokens`. `system` holds the memory as a data block (unverified facts marked), `prompt` the " +
        "conversation; `parts` says what was included or dropped, why, and its token cost.",
      inputSchema: {
        sessionId: z.string().trim().min(1).max(100).describe("The session's id, ses_…"),
        q: contextQuery.optional().describe("The message being answered: memories matching it are searched for"),
        max_tokens: z.number().int().min(MIN_CONTEXT_TOKENS).max(MAX_CONTEXT_TOKENS).optional().describe("Token budget (default 4000)"),
      },
    },
    ({ sessionId, q, max_tokens }) =>
      runTool(async () => {
        const context = await assembleContext(ctx, { session_id: sessionId, q: q ?? null, max_tokens });
        return jsonResult(context, `${context.system}\n\n${context.prompt}`);
      }),
  );
