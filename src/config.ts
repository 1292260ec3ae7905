import type { UserFromGetMe } from "grammy/types";
import { notConfigured } from "./errors";
import { isHttpUrl } from "./urls";

// The readers of the fronts' settings (auth, the Telegram bot), each once per request or object
// from the Worker's Env (src/worker-env.d.ts). The model and embeddings read their own (src/llm,
// src/embeddings).

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
