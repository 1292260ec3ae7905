import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Message, Update, User } from "grammy/types";
import { vi } from "vitest";
import type { LanguageModel } from "../../src/llm/providers";
import { call } from "../helpers";
import { type ModelSettings, useObjectModel } from "./scripted-model";

// A stand-in for the Telegram Bot API: every call the bot makes to TELEGRAM_API_ROOT is
// captured here (the bot's code runs in the test isolate), answered like Telegram would.

export const API_ROOT = "https://telegram.test";
export const WEBHOOK_SECRET = "test-webhook-secret-0123456789";

export interface BotCall {
  method: string;
  // Whatever the bot sent; each assertion names the fields it expects.
  payload: any;
  at: number;
}

type Answer = { status: number; body: unknown };

export interface TelegramStandIn {
  calls: BotCall[];
  /** Calls of one method to one chat, in order. */
  to(chatId: number, method?: string): BotCall[];
  /** The next calls of `method` get these answers instead of success, in order. */
  failNext(method: string, ...answers: Answer[]): void;
}

export const tooManyRequests = (retryAfter: number): Answer => ({
  status: 429,
  body: { ok: false, error_code: 429, description: `Too Many Requests: retry after ${retryAfter}`, parameters: { retry_after: retryAfter } },
});
export const serverError: Answer = { status: 502, body: { ok: false, error_code: 502, description: "Bad Gateway" } };

/** Installs the stand-in for the rest of the file; other fetches pass through. */
export function standInTelegram(): TelegramStandIn {
  const calls: BotCall[] = [];
  const failures = new Map<string, Answer[]>();
  let messageId = 1000;
  const original = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!url.startsWith(API_ROOT)) return original(input, init);
    const method = url.split("/").at(-1)!;
    const raw = init?.body ?? (input instanceof Request ? await input.text() : undefined);
    const payload = typeof raw === "string" && raw ? JSON.parse(raw) : {};
    calls.push({ method, payload, at: Date.now() });
    const failure = failures.get(method)?.shift();
    if (failure) return Response.json(failure.body, { status: failure.status });
    return Response.json({ ok: true, result: answerOf(method, payload, ++messageId) });
  });
  return {
    calls,
    to: (chatId, method) => calls.filter((c) => c.payload.chat_id === chatId && (method === undefined || c.method === method)),
    failNext: (method, ...answers) => failures.set(method, [...(failures.get(method) ?? []), ...answers]),
  };
}

function answerOf(method: string, payload: any, messageId: number): unknown {
  if (method === "sendMessage" || method === "editMessageText") {
    return { message_id: payload.message_id ?? messageId, date: Math.floor(Date.now() / 1000), chat: { id: payload.chat_id, type: "private" }, text: payload.text };
  }
  return true;
}

let sequence = Math.floor(Math.random() * 1e6) * 1000;
/** An id no other test in the file uses (update ids, chat and user ids). */
export const nextId = () => ++sequence;

export interface Person {
  user: User;
  chat: { id: number; type: "private" } | { id: number; type: "group"; title: string };
}

/** A new Telegram user in a private chat with the bot. */
export function newPerson(languageCode = "en", firstName = "Alice"): Person {
  const id = nextId();
  return { user: { id, is_bot: false, first_name: firstName, language_code: languageCode }, chat: { id, type: "private" } };
}

/** The same person writing in a group. */
export function inGroup(person: Person, title = "Team"): Person {
  return { ...person, chat: { id: -nextId(), type: "group", title } };
}

function message(person: Person, text: string): Message.TextMessage {
  const command = /^\/[a-z_]+(@\w+)?/.exec(text);
  return {
    message_id: nextId(),
    date: Math.floor(Date.now() / 1000),
    chat: person.chat,
    from: person.user,
    text,
    ...(command && { entities: [{ type: "bot_command", offset: 0, length: command[0].length }] }),
  } as Message.TextMessage;
}

/** A text message (a command when it starts with /), as Telegram sends it. */
export const textUpdate = (person: Person, text: string): Update => ({ update_id: nextId(), message: message(person, text) }) as Update;

export const editedUpdate = (person: Person, text: string): Update => ({
  update_id: nextId(),
  edited_message: { ...message(person, text), edit_date: Math.floor(Date.now() / 1000) },
}) as Update;

/** A press of an inline button under the bot's message `messageId`. */
export const callbackUpdate = (person: Person, data: string, messageId: number): Update => ({
  update_id: nextId(),
  callback_query: {
    id: String(nextId()),
    from: person.user,
    chat_instance: String(person.chat.id),
    data,
    message: { message_id: messageId, date: Math.floor(Date.now() / 1000), chat: person.chat, text: "…" } as Message.TextMessage,
  },
});

/** Posts an update to the webhook with the right secret (or the one given). */
export function postUpdate(update: unknown, secret: string | null = WEBHOOK_SECRET) {
  return call("POST", "/telegram/webhook", {
    body: update,
    headers: secret === null ? {} : { "X-Telegram-Bot-Api-Secret-Token": secret },
  });
}

export const chatObject = (chatId: number) => env.TELEGRAM_CHATS.get(env.TELEGRAM_CHATS.idFromName(String(chatId)));

/** Replaces the model of a chat's object, behind the shared limiter as its own (the seam: the object's deps). */
export async function useModel(chatId: number, model: LanguageModel | null, settings: ModelSettings = {}): Promise<void> {
  await runInDurableObject(chatObject(chatId), (instance) => useObjectModel(instance, model, settings));
}

/** Waits until the chat's object has handled every queued update. */
export async function settled(chatId: number, timeout = 20_000): Promise<void> {
  await vi.waitFor(
    async () => {
      if ((await chatObject(chatId).pending()) > 0) throw new Error("updates still queued");
    },
    { timeout, interval: 25 },
  );
}

/** Posts an update and waits until its chat has handled it. */
export async function send(person: Person, update: Update): Promise<void> {
  const res = await postUpdate(update);
  if (res.status !== 200) throw new Error(`webhook: ${res.status} ${res.text}`);
  await settled(person.chat.id);
}

/** Texts of the messages the bot sent to a chat, in order. */
export const sentTexts = (standIn: TelegramStandIn, chatId: number) => standIn.to(chatId, "sendMessage").map((c) => c.payload.text as string);
