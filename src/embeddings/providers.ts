import { notConfigured, refuseProblems, type SettingProblem } from "../errors";
import { loadTokenCounter } from "../llm/tokens";
import type { Embedder, Semantic } from "./ports";
import { vectorizeIndex } from "./vectorize-index";

export const EMBEDDINGS_PROVIDERS = ["workers-ai", "openai-compatible", "none"] as const;
export const DEFAULT_WORKERS_AI_EMBEDDING_MODEL = "@cf/baai/bge-m3";
const CALL_TIMEOUT_MS = 30_000;

/**
 * The embedder the configuration names (null: none). Set EMBEDDINGS_PROVIDER, or just
 * EMBEDDINGS_BASE_URL for an OpenAI-compatible endpoint; anything inconsistent is an error.
 */
export function createEmbedder(env: Env): Embedder | null {
  const provider = env.EMBEDDINGS_PROVIDER?.trim() || (env.EMBEDDINGS_BASE_URL ? "openai-compatible" : "none");
  switch (provider) {
    case "none":
      return null;
    case "workers-ai": {
      if (!env.AI) throw notConfigured("AI", 'EMBEDDINGS_PROVIDER=workers-ai needs the AI binding: add [ai] binding = "AI" to wrangler.toml');
      return workersAiEmbedder(env.AI, env.EMBEDDINGS_MODEL?.trim() || DEFAULT_WORKERS_AI_EMBEDDING_MODEL);
    }
    case "openai-compatible": {
      const baseUrl = env.EMBEDDINGS_BASE_URL?.trim();
      const problems: SettingProblem[] = [];
      if (!baseUrl || !/^https?:\/\//.test(baseUrl)) {
        problems.push({ setting: "EMBEDDINGS_BASE_URL", message: "EMBEDDINGS_PROVIDER=openai-compatible needs EMBEDDINGS_BASE_URL, an http(s) URL" });
      }
      if (!env.EMBEDDINGS_MODEL?.trim()) problems.push({ setting: "EMBEDDINGS_MODEL", message: "EMBEDDINGS_PROVIDER=openai-compatible needs EMBEDDINGS_MODEL" });
      refuseProblems(problems);
      return openAiCompatibleEmbedder(baseUrl!, env.EMBEDDINGS_MODEL!.trim(), env.EMBEDDINGS_API_KEY || undefined);
    }
    default:
      throw notConfigured("EMBEDDINGS_PROVIDER", `EMBEDDINGS_PROVIDER must be one of ${EMBEDDINGS_PROVIDERS.join(", ")}, not "${provider}"`);
  }
}

/** Both ports when the deployment has an embedder and the VECTORIZE binding; otherwise null. */
export function createSemantic(env: Env): Semantic | null {
  const embedder = createEmbedder(env);
  if (!embedder || !env.VECTORIZE) return null;
  return { embedder, index: vectorizeIndex(env.VECTORIZE) };
}

function workersAiEmbedder(ai: Ai, model: string): Embedder {
  return {
    model,
    async embed(texts) {
      const run = ai.run as unknown as (model: string, input: { text: string[] }) => Promise<{ data?: number[][] }>;
      const answer = await run(model, { text: texts });
      if (!answer.data || answer.data.length !== texts.length) throw new Error("Workers AI answered without one vector per text");
      return { vectors: answer.data, tokens: await countTokens(texts) };
    },
  };
}

/** Any server speaking OpenAI's POST /v1/embeddings (OpenAI, Ollama, vLLM, LM Studio, …). */
export function openAiCompatibleEmbedder(baseUrl: string, model: string, apiKey?: string): Embedder {
  const url = `${baseUrl.replace(/\/+$/, "")}/embeddings`;
  return {
    model,
    async embed(texts) {
      const res = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify({ model, input: texts }),
        signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
      });
      if (!res.ok) throw new Error(`the embeddings endpoint answered ${res.status}`);
      const body = (await res.json()) as { data?: { index: number; embedding: number[] }[]; usage?: { prompt_tokens?: number } };
      const data = [...(body.data ?? [])].sort((a, b) => a.index - b.index);
      if (data.length !== texts.length) throw new Error("the embeddings endpoint answered without one vector per text");
      return { vectors: data.map((d) => d.embedding), tokens: body.usage?.prompt_tokens ?? (await countTokens(texts)) };
    },
  };
}

async function countTokens(texts: string[]): Promise<number> {
  const count = await loadTokenCounter();
  return texts.reduce((sum, text) => sum + count(text), 0);
}
