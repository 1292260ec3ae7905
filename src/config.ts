import type { UserFromGetMe } from "grammy/types";
import { notConfigured } from "./errors";
import type { RateLimiterObject } from "./limits/rate-limiter";
import type { ModelLimiterObject } from "./llm/model-limiter";
import type { MindOperationsObject } from "./portability/operations-object";
import type { WorkMessage } from "./queue/units";
import type { SessionObject } from "./sessions/session-object";
import type { TelegramChatObject } from "./telegram/chat-object";

/**
 * Every binding, secret and setting the Worker is given (wrangler.toml, .dev.vars, `wrangler
 * secret put`), declared here alone. The Durable Object classes are imported as types only.
 */
export interface Env {
  /** The directory (accounts, minds, keys, claims, job runs), and the first shard of minds' data. */
  DB: D1Database;
  /** More shards of minds' data: any [[d1_databases]] binding named SHARD_1, SHARD_2, … */
  [shard: `SHARD_${number}`]: D1Database | undefined;
  /** One session object per session: the single writer of its history. */
  SESSIONS: DurableObjectNamespace<SessionObject>;
  /** One object per Telegram chat: handles the chat's updates in order, off the request path. */
  TELEGRAM_CHATS: DurableObjectNamespace<TelegramChatObject>;
  /** One object per rate-limit bucket (key, account or client address): a fixed-window counter. */
  RATE_LIMITS: DurableObjectNamespace<RateLimiterObject>;
  /** One object per mind: runs the mind's long operations (import, move, erase) in bounded slices. */
  MIND_OPERATIONS: DurableObjectNamespace<MindOperationsObject>;
  /** One object per model provider: requests and tokens per minute toward it (src/llm/model-limiter.ts). */
  MODEL_LIMITS?: DurableObjectNamespace<ModelLimiterObject>;
  /** The work queue: cron runs send one message per due unit, the same Worker consumes them. */
  JOBS?: Queue<WorkMessage>;
  /** The OAuth provider's storage: registered MCP clients, grants and tokens (hashed). */
  OAUTH_KV: KVNamespace;
  /** The operator's bearer token: admin routes and the Telegram setup (16 characters or more). */
  ADMIN_TOKEN: string;
  /** Signs people's tokens (16 characters or more). */
  JWT_SECRET: string;
  /** The `iss` of people's tokens (default edgemind). */
  JWT_ISSUER?: string;
  /** The `aud` of people's tokens (default edgemind-api). */
  JWT_AUDIENCE?: string;
  /** "production" turns on settings that only make sense behind HTTPS. */
  ENVIRONMENT?: string;
  /** The Worker's public origin, for links the bot hands out (default: the webhook request's origin). */
  PUBLIC_URL?: string;
  /** Which model provider extraction and consolidation use: workers-ai, openai-compatible or none. */
  LLM_PROVIDER?: string;
  /** The OpenAI-compatible endpoint, ending before /chat/completions (e.g. http://127.0.0.1:11434/v1). */
  LLM_BASE_URL?: string;
  /** The OpenAI-compatible endpoint's key, if it asks for one. */
  LLM_API_KEY?: string;
  /** The model's name (with workers-ai, default DEFAULT_WORKERS_AI_MODEL). */
  LLM_MODEL?: string;
  /** Model requests per minute for the whole deployment, per provider (default 300; 0: unlimited). */
  LLM_REQUESTS_PER_MINUTE?: string;
  /** Model tokens per minute for the whole deployment, per provider (default 200000; 0: unlimited). */
  LLM_TOKENS_PER_MINUTE?: string;
  /**
   * The Workers AI binding, read only when a provider is workers-ai. It is not declared in
   * wrangler.toml because local runs would then need a Cloudflare account; to use it add
   * `[ai]\nbinding = "AI"` there.
   */
  AI?: Ai;
  /** Recall by meaning: workers-ai, openai-compatible or none (the default: full-text search alone). */
  EMBEDDINGS_PROVIDER?: string;
  /** An OpenAI-compatible endpoint, ending before /embeddings (e.g. http://127.0.0.1:11434/v1). */
  EMBEDDINGS_BASE_URL?: string;
  /** The embedding model's name. */
  EMBEDDINGS_MODEL?: string;
  /** The embeddings endpoint's key, if it asks for one. */
  EMBEDDINGS_API_KEY?: string;
  /** The vector index, one namespace per mind; not declared in wrangler.toml (it needs an account). */
  VECTORIZE?: Vectorize;
  /** The bot's token from @BotFather; the bot is off while it is unset. */
  TELEGRAM_BOT_TOKEN?: string;
  /** Telegram sends it in X-Telegram-Bot-Api-Secret-Token with every webhook call. */
  TELEGRAM_WEBHOOK_SECRET?: string;
  /** The bot's getMe answer as JSON, so handling an update never asks Telegram who the bot is. */
  TELEGRAM_BOT_INFO?: string;
  /** Enough instead of TELEGRAM_BOT_INFO: the bot's username (its id is read from the token). */
  TELEGRAM_BOT_USERNAME?: string;
  /** The Bot API server (default https://api.telegram.org): a local stand-in in development and tests. */
  TELEGRAM_API_ROOT?: string;
  /** The rate limits' window in seconds; each limit below counts per window, 0 turns it off (defaults: src/limits/rate-limits.ts). */
  RATE_LIMIT_WINDOW_SECONDS?: string;
  /** Failed authentications per client address and window. */
  RATE_LIMIT_AUTH_FAILURES_PER_IP?: string;
  /** Failed authentications per key prefix (and per credential) and window. */
  RATE_LIMIT_AUTH_FAILURES_PER_KEY?: string;
  /**
   * Requests per key, OAuth client or account and per client address, each location counting its
   * own (Workers Rate Limiting, [[ratelimits]] in wrangler.toml; src/limits/request-limits.ts).
   */
  WRITES_PER_KEY?: RateLimit;
  WRITES_PER_IP?: RateLimit;
  READS_PER_KEY?: RateLimit;
  READS_PER_IP?: RateLimit;
  /** "off" counts no request in the bindings above (the tests, a benchmark). */
  RATE_LIMIT_REQUESTS?: string;
  /** OAuth client registrations per client address and window. */
  RATE_LIMIT_REGISTRATIONS_PER_IP?: string;
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
    throw notConfigured(`JWT_SECRET must be set to at least ${MIN_SECRET_LENGTH} characters`);
  }
  if (!env.ADMIN_TOKEN || env.ADMIN_TOKEN.length < MIN_SECRET_LENGTH) {
    throw notConfigured(`ADMIN_TOKEN must be set to at least ${MIN_SECRET_LENGTH} characters`);
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
      if (!env.AI) throw notConfigured('LLM_PROVIDER=workers-ai needs the AI binding: add [ai] binding = "AI" to wrangler.toml');
      return { provider, binding: env.AI, model: env.LLM_MODEL?.trim() || DEFAULT_WORKERS_AI_MODEL };
    case "openai-compatible": {
      if (!isHttpUrl(env.LLM_BASE_URL)) {
        throw notConfigured("LLM_PROVIDER=openai-compatible needs LLM_BASE_URL, an http(s) URL");
      }
      if (!env.LLM_MODEL?.trim()) throw notConfigured("LLM_PROVIDER=openai-compatible needs LLM_MODEL");
      return { provider, baseUrl: apiBaseUrl(env.LLM_BASE_URL), apiKey: env.LLM_API_KEY || undefined, model: env.LLM_MODEL.trim() };
    }
    default:
      throw notConfigured(`LLM_PROVIDER must be one of ${LLM_PROVIDERS.join(", ")}, not "${provider}"`);
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

function isHttpUrl(value: string | undefined): value is string {
  if (!value) return false;
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

export interface TelegramConfig {
  token: string;
  webhookSecret: string;
  botInfo: UserFromGetMe;
  apiRoot: string;
}

export const DEFAULT_TELEGRAM_API_ROOT = "https://api.telegram.org";
// Telegram allows 1-256 characters of A-Z, a-z, 0-9, _ and - in a webhook secret token.
const WEBHOOK_SECRET = /^[A-Za-z0-9_-]{16,256}$/;

/**
 * The bot's settings, or null when TELEGRAM_BOT_TOKEN is unset (the bot is off). Whatever is
 * set must be consistent: a bad secret or bot description is a configuration error.
 */
export function readTelegramConfig(env: Env): TelegramConfig | null {
  const token = env.TELEGRAM_BOT_TOKEN?.trim();
  if (!token) return null;
  const webhookSecret = env.TELEGRAM_WEBHOOK_SECRET ?? "";
  if (!WEBHOOK_SECRET.test(webhookSecret)) {
    throw notConfigured("TELEGRAM_WEBHOOK_SECRET must be set with TELEGRAM_BOT_TOKEN: 16-256 characters of A-Z, a-z, 0-9, _ and -");
  }
  const apiRoot = (env.TELEGRAM_API_ROOT?.trim() || DEFAULT_TELEGRAM_API_ROOT).replace(/\/+$/, "");
  if (!isHttpUrl(apiRoot)) throw notConfigured("TELEGRAM_API_ROOT must be an http(s) URL");
  return { token, webhookSecret, botInfo: readBotInfo(env, token), apiRoot };
}

function readBotInfo(env: Env, token: string): UserFromGetMe {
  if (env.TELEGRAM_BOT_INFO) {
    let info: Partial<UserFromGetMe>;
    try {
      info = JSON.parse(env.TELEGRAM_BOT_INFO) as Partial<UserFromGetMe>;
    } catch {
      throw notConfigured("TELEGRAM_BOT_INFO must be the JSON of the bot's getMe answer");
    }
    if (typeof info.id !== "number" || typeof info.username !== "string") {
      throw notConfigured("TELEGRAM_BOT_INFO must have the bot's numeric id and its username");
    }
    return { ...botInfoDefaults(info.id, info.username), ...info } as UserFromGetMe;
  }
  const username = env.TELEGRAM_BOT_USERNAME?.trim().replace(/^@/, "");
  if (!username) throw notConfigured("TELEGRAM_BOT_USERNAME (the bot's username) or TELEGRAM_BOT_INFO (its getMe JSON) must be set with TELEGRAM_BOT_TOKEN");
  const id = Number(token.split(":")[0]);
  if (!Number.isSafeInteger(id) || id <= 0) throw notConfigured("TELEGRAM_BOT_TOKEN must have the form <bot id>:<secret>, as @BotFather gives it");
  return botInfoDefaults(id, username);
}

const botInfoDefaults = (id: number, username: string): UserFromGetMe => ({
  id,
  is_bot: true,
  first_name: username,
  username,
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_inline_queries: false,
  can_connect_to_business: false,
  has_main_web_app: false,
  has_topics_enabled: false,
  allows_users_to_create_topics: false,
  can_manage_bots: false,
  supports_join_request_queries: false,
});
