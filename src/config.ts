import type { SessionObject } from "./sessions/session-object";

/** Bindings and secrets the Worker is given (wrangler.toml, .dev.vars, `wrangler secret put`). */
export interface Env {
  DB: D1Database;
  /** One session object per session: the single writer of its history. */
  SESSIONS: DurableObjectNamespace<SessionObject>;
  ADMIN_TOKEN: string;
  JWT_SECRET: string;
  JWT_ISSUER?: string;
  JWT_AUDIENCE?: string;
  /** "production" turns on settings that only make sense behind HTTPS. */
  ENVIRONMENT?: string;
  /** Which model provider extraction and consolidation use: workers-ai, openai-compatible or none. */
  LLM_PROVIDER?: string;
  /** The OpenAI-compatible endpoint, ending before /chat/completions (e.g. http://127.0.0.1:11434/v1). */
  LLM_BASE_URL?: string;
  LLM_API_KEY?: string;
  LLM_MODEL?: string;
  /**
   * The Workers AI binding, read only when LLM_PROVIDER=workers-ai. It is not declared in
   * wrangler.toml because local runs would then need a Cloudflare account; to use it add
   * `[ai]\nbinding = "AI"` there.
   */
  AI?: Ai;
}

export interface AuthConfig {
  adminToken: string;
  jwtSecret: Uint8Array;
  issuer: string;
  audience: string;
  tokenTtlSeconds: number;
}

const MIN_SECRET_LENGTH = 16;

/** Reads the auth settings once per request; a missing or short secret is a configuration error. */
export function readAuthConfig(env: Env): AuthConfig {
  if (!env.JWT_SECRET || env.JWT_SECRET.length < MIN_SECRET_LENGTH) {
    throw new Error(`JWT_SECRET must be set to at least ${MIN_SECRET_LENGTH} characters`);
  }
  if (!env.ADMIN_TOKEN || env.ADMIN_TOKEN.length < MIN_SECRET_LENGTH) {
    throw new Error(`ADMIN_TOKEN must be set to at least ${MIN_SECRET_LENGTH} characters`);
  }
  return {
    adminToken: env.ADMIN_TOKEN,
    jwtSecret: new TextEncoder().encode(env.JWT_SECRET),
    issuer: env.JWT_ISSUER ?? "edgemind",
    audience: env.JWT_AUDIENCE ?? "edgemind-api",
    tokenTtlSeconds: 24 * 60 * 60,
  };
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
      if (!env.AI) throw new Error('LLM_PROVIDER=workers-ai needs the AI binding: add [ai] binding = "AI" to wrangler.toml');
      return { provider, binding: env.AI, model: env.LLM_MODEL?.trim() || DEFAULT_WORKERS_AI_MODEL };
    case "openai-compatible": {
      if (!isHttpUrl(env.LLM_BASE_URL)) {
        throw new Error("LLM_PROVIDER=openai-compatible needs LLM_BASE_URL, an http(s) URL");
      }
      if (!env.LLM_MODEL?.trim()) throw new Error("LLM_PROVIDER=openai-compatible needs LLM_MODEL");
      return { provider, baseUrl: env.LLM_BASE_URL, apiKey: env.LLM_API_KEY || undefined, model: env.LLM_MODEL.trim() };
    }
    default:
      throw new Error(`LLM_PROVIDER must be one of ${LLM_PROVIDERS.join(", ")}, not "${provider}"`);
  }
}

function isHttpUrl(value: string | undefined): value is string {
  if (!value) return false;
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
