import type { UserFromGetMe } from "grammy/types";
import { createEmbedder } from "./embeddings/providers";
import { NotConfigured, refuseProblems, type SettingProblem } from "./errors";
import { readRateLimits } from "./limits/rate-limits";
import { readModelLimits } from "./llm/limited-model";
import { readLlmConfig } from "./llm/providers";
import { isHttpUrl } from "./urls";

// The readers of the fronts' settings (auth, the Telegram bot), each once per request or object
// from the Worker's Env (src/worker-env.d.ts). The model and embeddings read their own (src/llm,
// src/embeddings); configurationProblems runs every reader, for /health, `npm run dev` and the
// deploy check.

/** The settings set with `wrangler secret put` (or .dev.vars locally): the deploy check cannot see them. */
export const SECRETS = ["ADMIN_TOKEN", "JWT_SECRET", "TELEGRAM_BOT_TOKEN", "TELEGRAM_WEBHOOK_SECRET", "LLM_API_KEY", "EMBEDDINGS_API_KEY", "WEBHOOK_ENCRYPTION_KEY"] as const;

/** The bindings the routes and the background work cannot do without; wrangler.toml declares each. */
const REQUIRED_BINDINGS = ["DB", "SESSIONS", "TELEGRAM_CHATS", "RATE_LIMITS", "MIND_OPERATIONS", "OAUTH_KV", "OAUTH_GRANTS", "JOBS"] as const;

/** Every reader of settings: each runs alone, so one's problems hide no other's. */
const READERS: ((env: Env) => unknown)[] = [readAuthConfig, readTelegramConfig, readLlmConfig, readModelLimits, readRateLimits, readEmbeddings];

/**
 * Every configuration problem at once, each naming its setting: what a request, a Durable Object
 * or a queue message would refuse with `503 not_configured` when it reaches the setting. The one
 * list /health, `npm run dev` and the deploy check (scripts/) go through.
 */
export function configurationProblems(env: Env): SettingProblem[] {
  const problems: SettingProblem[] = REQUIRED_BINDINGS.filter((name) => !env[name]).map((setting) => ({
    setting,
    message: `the ${setting} binding is missing: wrangler.toml declares it`,
  }));
  for (const read of READERS) {
    try {
      read(env);
    } catch (error) {
      if (!(error instanceof NotConfigured)) throw error;
      problems.push(...error.problems);
    }
  }
  return problems;
}

/** The embedder, and the index it needs: without VECTORIZE a configured embedder would go unused. */
function readEmbeddings(env: Env): void {
  if (createEmbedder(env) && !env.VECTORIZE) {
    refuseProblems([{ setting: "VECTORIZE", message: "recall by meaning needs the VECTORIZE binding beside EMBEDDINGS_PROVIDER (README: Recall by meaning)" }]);
  }
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
  const short = (["JWT_SECRET", "ADMIN_TOKEN"] as const).filter((name) => (env[name]?.length ?? 0) < MIN_SECRET_LENGTH);
  refuseProblems(short.map((setting) => ({ setting, message: `${setting} must be set to at least ${MIN_SECRET_LENGTH} characters` })));
  return {
    adminToken: env.ADMIN_TOKEN,
    jwtSecret: new TextEncoder().encode(env.JWT_SECRET),
    issuer: env.JWT_ISSUER ?? "edgemind",
    audience: env.JWT_AUDIENCE ?? "edgemind-api",
    tokenTtlSeconds: 24 * 60 * 60,
  };
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
 * set must be consistent: a bad secret or bot description is a configuration error, every one
 * of them named at once.
 */
export function readTelegramConfig(env: Env): TelegramConfig | null {
  const token = env.TELEGRAM_BOT_TOKEN?.trim();
  if (!token) return null;
  const problems: SettingProblem[] = [];
  const webhookSecret = env.TELEGRAM_WEBHOOK_SECRET ?? "";
  if (!WEBHOOK_SECRET.test(webhookSecret)) {
    problems.push({
      setting: "TELEGRAM_WEBHOOK_SECRET",
      message: "TELEGRAM_WEBHOOK_SECRET must be set with TELEGRAM_BOT_TOKEN: 16-256 characters of A-Z, a-z, 0-9, _ and -",
    });
  }
  const apiRoot = (env.TELEGRAM_API_ROOT?.trim() || DEFAULT_TELEGRAM_API_ROOT).replace(/\/+$/, "");
  if (!isHttpUrl(apiRoot)) problems.push({ setting: "TELEGRAM_API_ROOT", message: "TELEGRAM_API_ROOT must be an http(s) URL" });
  const botInfo = readBotInfo(env, token);
  if ("setting" in botInfo) problems.push(botInfo);
  refuseProblems(problems);
  return { token, webhookSecret, botInfo: botInfo as UserFromGetMe, apiRoot };
}

function readBotInfo(env: Env, token: string): UserFromGetMe | SettingProblem {
  if (env.TELEGRAM_BOT_INFO) {
    let info: Partial<UserFromGetMe>;
    try {
      info = JSON.parse(env.TELEGRAM_BOT_INFO) as Partial<UserFromGetMe>;
    } catch {
      return { setting: "TELEGRAM_BOT_INFO", message: "TELEGRAM_BOT_INFO must be the JSON of the bot's getMe answer" };
    }
    if (typeof info.id !== "number" || typeof info.username !== "string") {
      return { setting: "TELEGRAM_BOT_INFO", message: "TELEGRAM_BOT_INFO must have the bot's numeric id and its username" };
    }
    return { ...botInfoDefaults(info.id, info.username), ...info } as UserFromGetMe;
  }
  const username = env.TELEGRAM_BOT_USERNAME?.trim().replace(/^@/, "");
  if (!username) {
    return {
      setting: "TELEGRAM_BOT_USERNAME",
      message: "TELEGRAM_BOT_USERNAME (the bot's username) or TELEGRAM_BOT_INFO (its getMe JSON) must be set with TELEGRAM_BOT_TOKEN",
    };
  }
  const id = Number(token.split(":")[0]);
  if (!Number.isSafeInteger(id) || id <= 0) {
    return { setting: "TELEGRAM_BOT_TOKEN", message: "TELEGRAM_BOT_TOKEN must have the form <bot id>:<secret>, as @BotFather gives it" };
  }
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
