import { generateTextFor } from "../llm/generate";
import type { LanguageModel } from "../llm/providers";
import { type MindContext, tokenAccountOf } from "../tenancy/mind-context";
import { assembleContext } from "./assemble";

const MAX_ANSWER_TOKENS = 1500;

/**
 * The model's answer to the session's latest message, given the assembled context; within the
 * mind's daily budget and recorded in the ledger as "chat".
 */
export async function answerInSession(ctx: MindContext, model: LanguageModel, sessionId: string, message: string): Promise<string> {
  const context = await assembleContext(ctx, { session_id: sessionId, q: message });
  const answer = await generateTextFor(ctx, model, {
    account: tokenAccountOf(ctx),
    purpose: "chat",
    system: context.system,
    prompt: context.prompt,
    maxOutputTokens: MAX_ANSWER_TOKENS,
  });
  return answer.value.trim();
}
