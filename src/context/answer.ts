import { generateTextFor } from "../llm/generate";
import { assertWithinBudget } from "../llm/ledger";
import type { LanguageModel } from "../llm/providers";
import { type MindContext, tokenAccountOf } from "../tenancy/mind-context";
import { assembleContext, type GivenDialogue } from "./assemble";

const MAX_ANSWER_TOKENS = 1500;

/**
 * The model's answer to the session's latest message, given the assembled context; within the
 * mind's daily budget (checked while the context is assembled) and recorded in the ledger as "chat".
 */
export async function answerInSession(
  mindContext: MindContext,
  model: LanguageModel,
  sessionId: string,
  message: string,
  given: GivenDialogue = {},
): Promise<string> {
  const [context] = await Promise.all([
    assembleContext(mindContext, { session_id: sessionId, q: message }, given),
    assertWithinBudget(mindContext, tokenAccountOf(mindContext)),
  ]);
  const answer = await generateTextFor(mindContext, model, {
    // The budget was checked above, beside the assembly: no second read before the call.
    account: { ...tokenAccountOf(mindContext), dailyBudget: null },
    purpose: "chat",
    system: context.system,
    prompt: context.prompt,
    maxOutputTokens: MAX_ANSWER_TOKENS,
    // The person waits for the answer, not for its line in the ledger.
    recordLater: true,
  });
  return answer.value.trim();
}
