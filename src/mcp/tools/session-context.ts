import { COMPACT_OUTPUT, compactContext } from "@edgemind/client/compact";
import { ARGUMENT_DESCRIPTIONS, TOOL_DESCRIPTIONS } from "@edgemind/client/tool-descriptions";
import { z } from "zod";
import { assembleContext, MAX_CONTEXT_TOKENS, MIN_CONTEXT_TOKENS } from "../../context/assemble";
import { asOfArgument, contextQuery } from "../../memory/fields";
import { ANNOTATIONS, jsonResult, type RegisterTool, runTool } from "../tool-context";

export const register: RegisterTool = (server, mindContext) =>
  server.registerTool(
    "session_context",
    {
      description: TOOL_DESCRIPTIONS.session_context,
      inputSchema: {
        sessionId: z.string().trim().min(1).max(100).describe(ARGUMENT_DESCRIPTIONS.session_context.sessionId),
        q: contextQuery.optional().describe(ARGUMENT_DESCRIPTIONS.session_context.q),
        max_tokens: z.number().int().min(MIN_CONTEXT_TOKENS).max(MAX_CONTEXT_TOKENS).optional().describe(ARGUMENT_DESCRIPTIONS.session_context.max_tokens),
        as_of: asOfArgument.optional().describe(ARGUMENT_DESCRIPTIONS.session_context.as_of),
        include_superseded: z.boolean().optional().describe(ARGUMENT_DESCRIPTIONS.session_context.include_superseded),
      },
      outputSchema: COMPACT_OUTPUT.session_context,
      annotations: ANNOTATIONS.reads,
    },
    ({ sessionId, q, max_tokens, as_of, include_superseded }) =>
      runTool(async () => {
        const context = await assembleContext(mindContext, { session_id: sessionId, q: q ?? null, max_tokens, as_of, include_superseded });
        // The system text and the conversation are what a model reads, as it would be given them.
        return jsonResult(compactContext(context), `${context.system}\n\n${context.prompt}`);
      }),
  );
