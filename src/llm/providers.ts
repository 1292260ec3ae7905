import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { createWorkersAI } from "workers-ai-provider";
import { notConfigured, refuseProblems, type SettingProblem } from "../errors";
import { isHttpUrl } from "../urls";

/** The language model edgemind's background work talks to. */
export type LanguageModel = LanguageModelV4;

/** The model the configuration names, or null when no model is configured. */
export function createLanguageModel(config: LlmConfig): LanguageModel | null {
  switch (config.provider) {
    case "none":
      return null;
    case "workers-ai":
      return createWorkersAI({ binding: config.binding })(config.model);
    case "openai-compatible":
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL: config.baseUrl,
        apiKey: config.apiKey,
      }).chatModel(config.model);
  }
}

export const LLM_PROVIDERS = ["workers-ai", "openai-compatible", "none"] as const;

export type LlmConfig =
  | { provider: "none" }
  | { provider: "workers-ai"; binding: Ai; model: string }
  | { provider: "openai-compatible"; baseUrl: string; apiKey: string | undefined; model: string };

export const DEFAULT_WORKERS_AI_MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";

/**
 * The model settings. With LLM_PROVIDER unset, a configured LLM_BASE_URL means
 * openai-compatible and nothing at all means none; anything inconsistent is a configuration error.
 */
export function readLlmConfig(env: Env): LlmConfig {
  const provider = env.LLM_PROVIDER?.trim() || (env.LLM_BASE_URL ? "openai-compatible" : "none");
  switch (provider) {
    case "none":
      return { provider };
    case "workers-ai":
      if (!env.AI) throw notConfigured("AI", 'LLM_PROVIDER=workers-ai needs the AI binding: add [ai] binding = "AI" to wrangler.toml');
      return { provider, binding: env.AI, model: env.LLM_MODEL?.trim() || DEFAULT_WORKERS_AI_MODEL };
    case "openai-compatible": {
      const problems: SettingProblem[] = [];
      if (!isHttpUrl(env.LLM_BASE_URL)) problems.push({ setting: "LLM_BASE_URL", message: "LLM_PROVIDER=openai-compatible needs LLM_BASE_URL, an http(s) URL" });
      if (!env.LLM_MODEL?.trim()) problems.push({ setting: "LLM_MODEL", message: "LLM_PROVIDER=openai-compatible needs LLM_MODEL" });
      refuseProblems(problems);
      return { provider, baseUrl: apiBaseUrl(env.LLM_BASE_URL!), apiKey: env.LLM_API_KEY || undefined, model: env.LLM_MODEL!.trim() };
    }
    default:
      throw notConfigured("LLM_PROVIDER", `LLM_PROVIDER must be one of ${LLM_PROVIDERS.join(", ")}, not "${provider}"`);
  }
}

/**
 * The base the client appends `/chat/completions` to. A bare origin (`http://127.0.0.1:11434`)
 * gets `/v1`, as OpenAI and Ollama serve it; a URL with a path (`…/v1`, Gemini's `…/v1beta/openai`)
 * is taken as given.
 */
export function apiBaseUrl(value: string): string {
  const url = new URL(value);
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${path === "" ? "/v1" : path}${url.search}`;
}
