import { eq } from "drizzle-orm";
import { isoNow } from "../clock";
import { accounts, telegramChats } from "../db/schema";
import type { Deps } from "../deps";
import { AppError, notFound } from "../errors";
import { newId } from "../ids";
import { ensureChat, getChat } from "../sessions/chats";
import type { Chat } from "../sessions/model";
import { bindMind, resolveMindContext } from "../tenancy/mind-context";
import { createMind, getMindById, type Mind } from "../tenancy/minds";
import type { Scope } from "../tenancy/principal";
import type { ChatState } from "./bot-context";
import type { BotLocale } from "./i18n";

export interface TelegramSender {
  id: number;
  first_name: string;
  username?: string;
}

export interface TelegramChatRef {
  id: number;
  type: "private" | "group" | "supergroup" | "channel";
  title?: string;
}

/** Who speaks in a Telegram chat, and the mind and chat their words belong to. */
export interface TelegramIdentity {
  accountId: string;
  /** The chat's mind, read once; `bindMind` turns it and `scope` into the mind context. */
  mind: Mind;
  chat: Chat;
  /** The Telegram chat was seen for the first time (a mind was made for it). */
  created: boolean;
  /** The sender acting as a human of the mind: their writes are verified, they may verify. */
  scope: Scope;
}

/**
 * The account of a Telegram user, created on first contact; the mind of a Telegram chat (the
 * user's personal mind in a private chat, a mind of its own in a group), created on first
 * contact; and the chat's row in `chats`.
 */
export async function ensureTelegramIdentity(
  deps: Deps,
  sender: TelegramSender,
  chat: TelegramChatRef,
  locale: BotLocale,
): Promise<TelegramIdentity> {
  const accountId = await ensureTelegramAccount(deps, sender, locale);
  // Which mind a Telegram chat talks to is the directory's to say; the chat's row is the mind's data.
  const db = deps.directory;
  const { clock } = deps;
  let mindId = (await db.select().from(telegramChats).where(eq(telegramChats.telegramChatId, chat.id)).get())?.mindId;
  let created = false;
  if (!mindId) {
    const personal = chat.type === "private";
    const mind = await createMind(deps, accountId, {
      name: personal ? `Telegram: ${sender.first_name}` : `Telegram group: ${chat.title ?? chat.id}`,
      locale,
    });
    await db
      .insert(telegramChats)
      .values({ telegramChatId: chat.id, mindId: mind.id, accountId, kind: personal ? "private" : "group", createdAt: isoNow(clock) })
      .onConflictDoNothing();
    mindId = (await db.select().from(telegramChats).where(eq(telegramChats.telegramChatId, chat.id)).get())?.mindId;
    if (!mindId) throw notFound("mind");
    created = mindId === mind.id;
  }
  const ctx = await resolveMindContext(deps, { kind: "telegram", accountId, mindId });
  const { chat: chatRow } = await ensureChat(ctx, mindId, "telegram", String(chat.id));
  return { accountId, mind: ctx.mind, chat: chatRow, created, scope: ctx.scope };
}

/** What the chat's object keeps of a sender's identity between updates. */
interface KeptIdentity {
  /** What it was built from: a new name, chat title or language makes it be built again. */
  from: string;
  accountId: string;
  mindId: string;
  chatId: string;
  scope: Scope;
}

const keptName = (sender: TelegramSender) => `identity:${sender.id}`;

/**
 * The sender's identity in this chat. The chat's object keeps it: while the sender, the chat
 * and the language are as they were, no upsert runs; the mind (its settings and shard as they
 * are now) and the chat's row (its active session) are read, and either gone builds the
 * identity again. Otherwise the account, mind and chat upserts run.
 */
export async function keptTelegramIdentity(
  deps: Deps,
  state: ChatState,
  sender: TelegramSender,
  chat: TelegramChatRef,
  locale: BotLocale,
): Promise<TelegramIdentity> {
  const from = JSON.stringify([sender.id, sender.first_name, sender.username ?? null, chat.id, chat.type, chat.title ?? null, locale]);
  const kept = state.get<KeptIdentity | null>(keptName(sender));
  if (kept && kept.from === from) {
    const found = await orNull(async () => {
      const mind = await getMindById(deps, kept.mindId);
      return { mind, chat: await getChat(bindMind(deps, mind, kept.scope), kept.chatId) };
    });
    if (found) return { accountId: kept.accountId, ...found, created: false, scope: kept.scope };
  }
  const who = await ensureTelegramIdentity(deps, sender, chat, locale);
  state.put(keptName(sender), { from, accountId: who.accountId, mindId: who.mind.id, chatId: who.chat.id, scope: who.scope } satisfies KeptIdentity);
  return who;
}

async function orNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") return null;
    throw error;
  }
}

async function ensureTelegramAccount(deps: Deps, sender: TelegramSender, locale: BotLocale): Promise<string> {
  const db = deps.directory;
  const { clock } = deps;
  const find = () => db.select({ id: accounts.id }).from(accounts).where(eq(accounts.telegramUserId, sender.id)).get();
  // Account names are unique too: should another account hold the usual name, a longer one is used.
  for (const name of [`telegram:${sender.id}`, `telegram:${sender.id}:${newId("acc")}`]) {
    await db
      .insert(accounts)
      .values({ id: newId("acc"), name, telegramUserId: sender.id, locale, createdAt: isoNow(clock) })
      .onConflictDoNothing();
    const row = await find();
    if (row) return row.id;
  }
  throw notFound("account");
}
