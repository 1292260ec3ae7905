import { Bot, type MiddlewareFn } from "grammy";
import type { TelegramConfig } from "../config";
import { appErrorOf, type ErrorCode } from "../errors";
import { logEvent } from "../observe/log";
import { bindMind } from "../tenancy/mind-context";
import { journaledCalls } from "./api";
import type { BotContext, BotServices } from "./bot-context";
import { chatReads } from "./chat-position";
import { chatFeature } from "./features/chat";
import { loginFeature } from "./features/login";
import { memoryFeature } from "./features/memory";
import { startFeature } from "./features/start";
import { taskFeature } from "./features/tasks";
import { localeOf, translator } from "./i18n";
import { keptTelegramIdentity } from "./identity";

/**
 * The bot for one update's handling: grammY with the configured botInfo (no getMe call),
 * every Bot API call journaled, one composer per feature. Errors a person can act on are
 * answered in their language; anything else is thrown for the chat's object to retry.
 */
export function createBot(config: TelegramConfig, services: BotServices): Bot<BotContext> {
  const bot = new Bot<BotContext>(config.token, { botInfo: config.botInfo, client: { apiRoot: config.apiRoot } });
  bot.api.config.use(journaledCalls(services.journal));
  bot.use(identify(services));
  bot.use(friendlyErrors);
  bot.use(startFeature, loginFeature, memoryFeature, taskFeature, chatFeature);
  bot.on("callback_query", (ctx) => ctx.answerCallbackQuery());
  return bot;
}

/**
 * Language, translations and the sender's account and mind, read in the chat's D1 session
 * (src/telegram/chat-position.ts); updates without both sender and chat stop here.
 */
function identify(services: BotServices): MiddlewareFn<BotContext> {
  return async (ctx, next) => {
    ctx.services = services;
    ctx.locale = localeOf(ctx.from?.language_code);
    ctx.t = translator(ctx.locale);
    const sender = ctx.from;
    const chat = ctx.chat;
    // Only new messages and button presses are handled: an edit changes nothing already said.
    if (!ctx.message && !ctx.callbackQuery) return;
    if (!sender || sender.is_bot || !chat || chat.type === "channel") return;
    const reads = chatReads(services.deps, services.state);
    ctx.who = await services.journal.once("identity", () =>
      keptTelegramIdentity(services.deps, services.state, sender, { id: chat.id, type: chat.type, title: "title" in chat ? chat.title : undefined }, ctx.locale, reads.reader),
    );
    const session = reads.open(bindMind(services.deps, ctx.who.mind, ctx.who.scope));
    ctx.mindContext = session.mindContext;
    try {
      await next();
    } finally {
      // Kept even after a failure: a retry must read the writes this attempt made.
      session.remember();
    }
  };
}

const FRIENDLY: Partial<Record<ErrorCode, string>> = {
  not_found: "error-not-found",
  invalid_request: "error-invalid",
  forbidden: "error-forbidden",
  conflict: "error-conflict",
  budget_exceeded: "error-budget",
};

/**
 * Errors that retrying cannot fix get a short reply; the rest go up to be retried. The domain's
 * own message is English, so only the English reply quotes it.
 */
const friendlyErrors: MiddlewareFn<BotContext> = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    const known = appErrorOf(error);
    const id = known ? FRIENDLY[known.code] : undefined;
    if (!known || !id || !ctx.chat) throw error;
    const { code, message } = known;
    logEvent("warn", "telegram_update_refused", { update_id: ctx.update.update_id, error_code: code });
    if (ctx.callbackQuery) await ctx.answerCallbackQuery();
    await ctx.reply(ctx.t(id, { message }));
  }
};
