import { eq } from "drizzle-orm";
import { isoNow } from "../clock";
import type { Db } from "../db/client";
import { accounts, telegramChats } from "../db/schema";
import type { Deps } from "../deps";
import { AppError, notFound } from "../errors";
import { newId } from "../ids";
import { ensureChat } from "../sessions/chats";
import type { Chat, Session } from "../sessions/rows";
import { chatWithActiveSession } from "../sessions/sessions";
import { knownMindById } from "../tenancy/directory-cache";
import { bindMind, resolveMindContext } from "../tenancy/mind-context";
import { createMind, MIND_NAME_MAX_CHARS, type Mind } from "../tenancy/minds";
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
  /** The chat's active session as the identity was read (null: not read, none, or deleted). */
  session: Session | null;
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
      name: personal ? mindName("Telegram", sender.first_name, String(sender.id)) : mindName("Telegram group", chat.title, String(chat.id)),
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
  const mindContext = await resolveMindContext(deps, { kind: "telegram", accountId, mindId });
  const { chat: chatRow } = await ensureChat(mindContext, "telegram", String(chat.id));
  return { accountId, mind: mindContext.mind, chat: chatRow, session: null, created, scope: mindContext.scope };
}

/**
 * A mind's name from a name Telegram sent (a person's first name, a group's title), held to
 * what any mind's name may be: one line without control characters, at most MIND_NAME_MAX_CHARS
 * characters (a pair of surrogates is never cut), `fallback` when nothing is left.
 */
function mindName(prefix: string, name: string | undefined, fallback: string): string {
  const clean = (name ?? "").replace(/\p{Cc}+/gu, " ").replace(/\s+/gu, " ").trim();
  const room = MIND_NAME_MAX_CHARS - prefix.length - 2;
  let kept = "";
  for (const c of clean || fallback) {
    if (kept.length + c.length > room) break;
    kept += c;
  }
  return `${prefix}: ${kept.trim() || fallback}`;
}

/** What the chat's object keeps of a sender's identity between updates. */
interface KeptIdentity {
  /** What it was built from: a new name, chat title or language makes it be built again. */
  from: string;
  accountId: string;
  mindId: string;
  /** The database that held the mind's data when kept: read beside the mind, checked against it. */
  shard?: string;
  chatId: string;
  scope: Scope;
}

const keptName = (sender: TelegramSender) => `identity:${sender.id}`;

/**
 * The sender's identity in this chat. The chat's object keeps it: while the sender, the chat
 * and the language are as they were, no upsert runs; the mind (its settings and shard as they
 * are now) is read beside the chat's row and its active session, in one round trip, and either
 * gone builds the identity again. Otherwise the account, mind and chat upserts run. The chat's
 * row and session are read from `reader` (the chat's session on the mind's database).
 */
export async function keptTelegramIdentity(
  deps: Deps,
  state: ChatState,
  sender: TelegramSender,
  chat: TelegramChatRef,
  locale: BotLocale,
  reader: (mindId: string, shard: string) => Db,
): Promise<TelegramIdentity> {
  const from = JSON.stringify([sender.id, sender.first_name, sender.username ?? null, chat.id, chat.type, chat.title ?? null, locale]);
  const kept = state.get<KeptIdentity | null>(keptName(sender));
  if (kept && kept.from === from) {
    const found = await orNull(() => readKept(deps, kept, reader));
    if (found) {
      if (found.mind.shard !== kept.shard) state.put(keptName(sender), { ...kept, shard: found.mind.shard } satisfies KeptIdentity);
      return { accountId: kept.accountId, ...found, created: false, scope: kept.scope };
    }
  }
  const who = await ensureTelegramIdentity(deps, sender, chat, locale);
  state.put(keptName(sender), { from, accountId: who.accountId, mindId: who.mind.id, shard: who.mind.shard, chatId: who.chat.id, scope: who.scope } satisfies KeptIdentity);
  return who;
}

/**
 * The kept mind, chat and active session as they are now (the mind as the directory cache has it). The chat is read where the mind was
 * kept, beside the mind; a mind since moved is read again where it lives now, at its primary. Every read names
 * the kept mind in SQL, so nothing of another mind is ever read.
 */
async function readKept(deps: Deps, kept: KeptIdentity, reader: (mindId: string, shard: string) => Db): Promise<{ mind: Mind; chat: Chat; session: Session | null }> {
  const atKept = kept.shard === undefined ? null : chatWithActiveSession({ shard: reader(kept.mindId, kept.shard), scope: kept.scope }, kept.chatId);
  // Read beside the mind, so a failed read is awaited either way (never left unhandled). The mind
  // comes from this isolate's directory cache, as a REST request's does (a change seen within its bound).
  const [mind, read] = await Promise.all([knownMindById(deps, kept.mindId), atKept?.then((r) => ({ ok: r }), (error: unknown) => ({ error }))]);
  if (read && mind.shard === kept.shard) {
    if ("error" in read) throw read.error;
    return { mind, ...read.ok };
  }
  return { mind, ...(await chatWithActiveSession(bindMind(deps, mind, kept.scope), kept.chatId)) };
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
