import { Api } from "grammy";
import type { Update } from "grammy/types";
import type { Context } from "hono";
import { z } from "zod";
import { type AppEnv, createRouter } from "../app-env";
import { failAuthentication, refuseBlockedClient, requireAdmin } from "../auth/middleware";
import { readTelegramConfig, type TelegramConfig } from "../config";
import { claimUpdate, releaseUpdate } from "../db/telegram-updates";
import { AppError } from "../errors";
import { readBodyWithin } from "../http/body-limit";
import { holdsLoneSurrogate } from "../json-text";
import { currentRequestId, logEvent } from "../observe/log";
import { secretsEqual } from "../secrets";
import { commandMenu } from "./commands";
import { translator } from "./i18n";
import { chatOfUpdate } from "./updates";

/** Update types the bot handles; Telegram sends no others once the webhook is registered. */
export const ALLOWED_UPDATES = ["message", "callback_query"] as const;

export const WEBHOOK_PATH = "/telegram/webhook";
/** The largest update read: Telegram's are far smaller, and a larger one is acknowledged unread. */
export const MAX_UPDATE_BYTES = 64 * 1024;

const UpdateSchema = z.looseObject({ update_id: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER) });

// The parts of an update the bot reads, checked before the update is claimed and queued: an
// update that lacks them (or holds a number where text belongs) can never be handled, so it
// is acknowledged and skipped rather than failed and retried.
const id = z.number().int();
// Text with a lone surrogate (a `\ud800` escape with no partner) is not text, as in every JSON body.
const text = z.string().refine((s) => !holdsLoneSurrogate(s), "holds a lone surrogate");
// Names are text too: a person's, a chat's or a group's title is held to the same rule.
const names = { first_name: text.optional(), last_name: text.optional(), username: text.optional(), title: text.optional() };
const user = z.looseObject({ id, language_code: z.string().optional(), ...names });
const message = z.looseObject({
  message_id: id,
  chat: z.looseObject({ id, type: z.string(), ...names }),
  from: user.optional(),
  text: text.optional(),
  caption: text.optional(),
});
const HandledParts = z.looseObject({
  message: message.optional(),
  edited_message: message.optional(),
  callback_query: z
    .looseObject({ id: z.string(), from: user, data: text.optional(), message: z.looseObject({ message_id: id, chat: z.looseObject({ id, ...names }) }).optional() })
    .optional(),
});

function telegramConfig(c: Context<AppEnv>): TelegramConfig {
  const config = readTelegramConfig(c.env);
  if (!config) throw new AppError("not_found", "the Telegram bot is not configured (TELEGRAM_BOT_TOKEN)");
  return config;
}

/** The origin links in replies point at: PUBLIC_URL, or where the request came in. */
const publicOrigin = (c: Context<AppEnv>) => (c.env.PUBLIC_URL?.trim() || new URL(c.req.url).origin).replace(/\/+$/, "");

export const telegramRoutes = createRouter();

/**
 * Telegram's webhook: the secret token is checked before anything else (a wrong one counts as
 * a failed authentication), the update id is claimed in D1 (a re-delivery is answered 200 and
 * dropped), and the update is queued in its chat's object, which handles it after this answer. Anything that can never be handled (too
 * large, not JSON, no update id, parts of the wrong type) is acknowledged and recorded, never
 * refused: Telegram would deliver a refused update again and again.
 */
telegramRoutes.post(WEBHOOK_PATH, async (c) => {
  const config = telegramConfig(c);
  const presented = c.req.header("X-Telegram-Bot-Api-Secret-Token");
  const secretOk = presented !== undefined && (await secretsEqual(presented, config.webhookSecret));
  // Read (within the bound) even when refused: a body left unread would break the connection.
  const body = await readBodyWithin(c.req.raw, MAX_UPDATE_BYTES);
  if (!secretOk) {
    // A wrong secret is a failed authentication: counted in the same limits as a bad key.
    await refuseBlockedClient(c, presented ?? null);
    await failAuthentication(c, presented ?? null, "wrong or missing secret token");
  }
  const deps = c.var.deps;
  if (!body.complete) {
    const updateId = leadingUpdateId(body.bytes);
    if (updateId !== null) await claimUpdate(deps, updateId);
    logEvent("warn", "telegram_update_skipped", { reason: "too_large", max_bytes: MAX_UPDATE_BYTES, update_id: updateId ?? null });
    return c.json({ ok: true, ignored: "too_large" }, 200);
  }
  const parsed = UpdateSchema.safeParse(parseJson(body.bytes));
  if (!parsed.success) {
    logEvent("warn", "telegram_update_skipped", { reason: "no_update_id", bytes: body.bytes.byteLength });
    return c.json({ ok: true, ignored: "malformed" }, 200);
  }
  const update = parsed.data as unknown as Update;
  const handled = HandledParts.safeParse(parsed.data);
  if (!handled.success) {
    // Recorded (claimed, and logged without its content) so a re-delivery is dropped too.
    await claimUpdate(deps, update.update_id);
    logEvent("warn", "telegram_update_skipped", { reason: "malformed", update_id: update.update_id, fields: handled.error.issues.map((i) => i.path.join(".")).join(", ") });
    return c.json({ ok: true, ignored: "malformed" }, 200);
  }
  if (!(await claimUpdate(deps, update.update_id))) return c.json({ ok: true, duplicate: true }, 200);
  const where = chatOfUpdate(update);
  if (!where) return c.json({ ok: true, ignored: true }, 200);
  try {
    const chat = c.env.TELEGRAM_CHATS.get(c.env.TELEGRAM_CHATS.idFromName(String(where.chatId)));
    await chat.enqueue(update, publicOrigin(c), currentRequestId());
  } catch (error) {
    // Not queued: give the claim back and fail, so Telegram delivers the update again.
    await releaseUpdate(deps, update.update_id);
    throw error;
  }
  return c.json({ ok: true }, 200);
});

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return null;
  }
}

/** The update id an update too large to read starts with, as Telegram writes it first. */
function leadingUpdateId(head: Uint8Array): number | null {
  const match = /^\s*\{\s*"update_id"\s*:\s*(\d{1,15})\s*[,}]/.exec(new TextDecoder().decode(head.subarray(0, 64)));
  return match ? Number(match[1]) : null;
}

/**
 * Registers the webhook with Telegram (this Worker's URL, the secret token, the update types
 * handled) and the command menu in English (the default) and Russian. ADMIN_TOKEN only.
 */
telegramRoutes.post("/telegram/setup", requireAdmin, async (c) => {
  const config = telegramConfig(c);
  const api = new Api(config.token, { apiRoot: config.apiRoot });
  const url = `${publicOrigin(c)}/telegram/webhook`;
  await api.setWebhook(url, { secret_token: config.webhookSecret, allowed_updates: [...ALLOWED_UPDATES], drop_pending_updates: false });
  await api.setMyCommands(commandMenu(translator("en")));
  await api.setMyCommands(commandMenu(translator("ru")), { language_code: "ru" });
  return c.json({ ok: true, webhook: url, allowed_updates: ALLOWED_UPDATES, command_languages: ["default", "ru"] }, 200);
});
