import type { Scope } from "../auth/principal";
import { generateTextFor, type ModelDeps } from "../llm/generate";
import type { LanguageModel } from "../llm/providers";
import { getMindById } from "../minds/minds";
import { assembleContext } from "./context";

const MAX_ANSWER_TOKENS = 1500;

/**
 * The model's answer to the session's latest message, given the assembled context; within the
 * mind's daily budget and recorded in the ledger as "chat".
 */
export async function answerInSession(
  deps: ModelDeps & { llm: LanguageModel },
  scope: Scope,
  sessionId: string,
  message: string,
): Promise<string> {
  const { settings } = await getMindById(deps, scope.mindId);
  const context = await assembleContext(deps, scope, { session_id: sessionId, q: message });
  const answer = await generateTextFor(deps, deps.llm, {
    mindId: scope.mindId,
    purpose: "chat",
    budget: settings.daily_token_budget,
    system: context.system,
    prompt: context.prompt,
    maxOutputTokens: MAX_ANSWER_TOKENS,
  });
  return answer.value.trim();
}
