import { APICallError } from "@ai-sdk/provider";
import { wrapLanguageModel } from "ai";
import { ModelRateLimited, refuseProblems, type SettingProblem } from "../errors";
import { createLanguageModel, type LanguageModel, type LlmConfig, readLlmConfig } from "./providers";

/** What the shared limiter lets through toward one provider (src/llm/model-limiter.ts counts it). */
export interface ModelLimits {
  /** Requests per minute; 0: unlimited. */
  requestsPerMinute: number;
  /** Tokens (prompt estimate + output allowance) per minute; 0: unlimited. */
  tokensPerMinute: number;
}

export const DEFAULT_MODEL_LIMITS: ModelLimits = { requestsPerMinute: 300, tokensPerMinute: 200_000 };

/** The limits from LLM_REQUESTS_PER_MINUTE and LLM_TOKENS_PER_MINUTE; a bad value is a configuration error. */
export function readModelLimits(env: Env): ModelLimits {
  const problems: SettingProblem[] = [];
  const read = (name: "LLM_REQUESTS_PER_MINUTE" | "LLM_TOKENS_PER_MINUTE", fallback: number) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 0) problems.push({ setting: name, message: `${name} must be a whole number ≥ 0 (0: unlimited), not "${raw}"` });
    return value;
  };
  const limits = {
    requestsPerMinute: read("LLM_REQUESTS_PER_MINUTE", DEFAULT_MODEL_LIMITS.requestsPerMinute),
    tokensPerMinute: read("LLM_TOKENS_PER_MINUTE", DEFAULT_MODEL_LIMITS.tokensPerMinute),
  };
  refuseProblems(problems);
  return limits;
}

// Without a reported size, an answer is counted at this many tokens toward the per-minute budget.
const OUTPUT_ALLOWANCE = 1_024;

/** The provider a limiter object stands for: every caller of the same endpoint and model shares it. */
const providerKey = (config: Exclude<LlmConfig, { provider: "none" }>) =>
  config.provider === "openai-compatible" ? `openai-compatible ${new URL(config.baseUrl).host}` : `workers-ai`;

/**
 * The model every entry point calls (null: none configured): the configured provider's, or
 * `standIn` (a scripted model in tests, limited apart under its model id), every call of which
 * first takes a request and its tokens from the deployment's shared limiter; refused, the call throws ModelRateLimited without
 * reaching the provider. Without the MODEL_LIMITS binding, or with both limits 0, the model as is.
 */
export function createLimitedModel(env: Env, standIn?: LanguageModel | null): LanguageModel | null {
  const { model, key } = standIn === undefined ? configuredModel(readLlmConfig(env)) : { model: standIn, key: `stand-in ${standIn?.modelId}` };
  if (!model || !env.MODEL_LIMITS) return model;
  const limits = readModelLimits(env);
  if (limits.requestsPerMinute === 0 && limits.tokensPerMinute === 0) return model;
  const namespace = env.MODEL_LIMITS;
  const limiter = () => namespace.get(namespace.idFromName(key));
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v4",
      wrapGenerate: async ({ doGenerate, params }) => {
        // A cheap estimate (4 characters a token) of the prompt, plus the answer it may write.
        const tokens = Math.ceil(JSON.stringify(params.prompt).length / 4) + (params.maxOutputTokens ?? OUTPUT_ALLOWANCE);
        const admission = await limiter().admit(tokens, limits);
        if (!admission.ok) throw new ModelRateLimited(Math.max(1, Math.ceil(admission.retryAfterMs / 1000)));
        try {
          return await doGenerate();
        } catch (error) {
          // The provider's own "too many requests" holds back every caller, not only this one.
          if (APICallError.isInstance(error) && error.statusCode === 429) await limiter().pause(retryAfterMs(error.responseHeaders) ?? 30_000);
          throw error;
        }
      },
    },
  });
}

/** The configured model and the limiter it shares with every caller of its provider. */
function configuredModel(config: LlmConfig): { model: LanguageModel | null; key: string } {
  return { model: createLanguageModel(config), key: config.provider === "none" ? "" : providerKey(config) };
}

function retryAfterMs(headers: Record<string, string> | undefined): number | null {
  const value = Number(headers?.["retry-after"]);
  return Number.isFinite(value) && value > 0 ? value * 1000 : null;
}
