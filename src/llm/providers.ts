import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { createWorkersAI } from "workers-ai-provider";
import type { LlmConfig } from "../config";

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
