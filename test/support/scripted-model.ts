import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import type { Deps } from "../../src/deps";
import { createLimitedModel } from "../../src/llm/limited-model";
import type { LanguageModel } from "../../src/llm/providers";
import { loadTokenCounter } from "../../src/llm/tokens";

/** One scripted turn: a fixed answer, an error to throw, or an answer computed from the prompt. */
export type Turn = string | Error | ((prompt: string, call: number, system: string) => string | Promise<string>);

export interface ScriptedModel {
  model: MockLanguageModelV4;
  /** The user prompt of every call, in order. */
  prompts: string[];
  /** The system text of every call, in order. */
  systems: string[];
}

export const SCRIPTED_USAGE = { inputTokens: 120, outputTokens: 30 };

/**
 * A model that plays the given turns in order (the last one repeats) and reports token usage,
 * fixed or ("counted") counted with cl100k over what it was sent and what it answered, so tests
 * drive the real AI SDK path without a network.
 */
export function scriptedModel(turns: Turn[], usage: typeof SCRIPTED_USAGE | "counted" = SCRIPTED_USAGE): ScriptedModel {
  const prompts: string[] = [];
  const systems: string[] = [];
  const model = new MockLanguageModelV4({
    // Its own id: the shared limiter counts each stand-in apart.
    modelId: `scripted ${crypto.randomUUID()}`,
    doGenerate: async (options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> => {
      const { system, prompt } = flatten(options);
      prompts.push(prompt);
      systems.push(system);
      const turn = turns[Math.min(prompts.length - 1, turns.length - 1)]!;
      if (turn instanceof Error) throw turn;
      const text = typeof turn === "function" ? await turn(prompt, prompts.length, system) : turn;
      const count = await loadTokenCounter();
      const used = usage === "counted" ? { inputTokens: count(system) + count(prompt), outputTokens: count(text) } : usage;
      return {
        content: [{ type: "text", text }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: used.inputTokens, noCache: used.inputTokens, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: used.outputTokens, text: used.outputTokens, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
  return { model, prompts, systems };
}

/** The limits a Durable Object reads for its model. */
export type ModelSettings = Pick<Env, "LLM_REQUESTS_PER_MINUTE" | "LLM_TOKENS_PER_MINUTE">;

/**
 * Makes `model` the model of a Durable Object (`instance`, inside runInDurableObject): its deps'
 * model, built by the one factory behind the shared limiter with the object's env and `settings`.
 */
export function useObjectModel(instance: unknown, model: LanguageModel | null, settings: ModelSettings = {}): void {
  const object = instance as { deps: Deps; env: Env };
  const env = { ...object.env, ...settings };
  object.deps = { ...object.deps, model: () => createLimitedModel(env, model) };
}

function flatten(options: LanguageModelV4CallOptions): { system: string; prompt: string } {
  let system = "";
  let prompt = "";
  for (const message of options.prompt) {
    if (message.role === "system") system += message.content;
    else if (message.role === "user") {
      for (const part of message.content) if (part.type === "text") prompt += part.text;
    }
  }
  return { system, prompt };
}

/** Lines of the prompt between `<tag>` and `</tag>`. */
export function section(prompt: string, tag: string): string[] {
  const start = prompt.indexOf(`<${tag}>`);
  const end = prompt.indexOf(`</${tag}>`);
  if (start < 0 || end < 0) return [];
  return prompt
    .slice(start + tag.length + 2, end)
    .split("\n")
    .filter((l) => l.trim() !== "");
}
