import { DurableObject } from "cloudflare:workers";
import { BotError, GrammyError } from "grammy";
import type { Update } from "grammy/types";
import { readTelegramConfig, type TelegramConfig } from "../config";
import type { Deps } from "../deps";
import { objectDeps } from "../deps";
import { rateLimitedIn } from "../errors";
import { currentRequestId, logFailure, withLogFields } from "../observe/log";
import { givenUp, type RetryPolicy, retryDelay } from "../retry";
import { serialQueue } from "../serial";
import { RetryLater } from "./api";
import { createBot } from "./bot";
import type { ChatState } from "./bot-context";
import { localeOf, translator } from "./i18n";
import { kvJournal } from "./journal";
import { chatOfUpdate } from "./updates";

const SEQUENCE_KEY = "sequence";
const QUEUE_PREFIX = "queue:";
const STATE_PREFIX = "state:";
/** A failed handling is tried again after 1, 2, then 4 s; after the fourth failure the person is told and the update dropped. */
export const CHAT_RETRY = { firstMs: 1_000, maxMs: 4_000, attempts: 4 } as const satisfies RetryPolicy;
/** Handlings of one update at most. */
export const MAX_ATTEMPTS = CHAT_RETRY.attempts;

interface QueuedUpdate {
  update: Update;
  /** The Worker's public origin, for links in replies. */
  origin: string;
  attempts: number;
  /** The id of the webhook request that brought the update: every line of its handling carries it. */
  requestId?: string;
}

type Outcome = { done: true } | { done: false; afterMs: number; permanent: boolean; error: unknown };

/**
 * One per Telegram chat (named by its id). Updates are queued in its storage and handled one
 * at a time, in arrival order, by its alarm, off the webhook's request path. A failed handling
 * is tried again a bounded number of times; the journal keeps a retry from repeating a write,
 * a model call or a reply that already happened.
 */
export class TelegramChatObject extends DurableObject<Env> {
  private readonly deps: Deps;
  private readonly serially = serialQueue();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.deps = objectDeps(env, ctx, { semantic: true });
  }

  /** Queues an update behind the chat's earlier ones and makes sure the alarm will handle it. */
  async enqueue(update: Update, origin: string, requestId?: string): Promise<void> {
    const kv = this.ctx.storage.kv;
    const sequence = (kv.get<number>(SEQUENCE_KEY) ?? 0) + 1;
    kv.put(SEQUENCE_KEY, sequence);
    kv.put(`${QUEUE_PREFIX}${String(sequence).padStart(12, "0")}`, { update, origin, attempts: 0, requestId } satisfies QueuedUpdate);
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now());
  }

  /** How many updates wait to be handled. */
  pending(): number {
    return [...this.ctx.storage.kv.list({ prefix: QUEUE_PREFIX })].length;
  }

  override async alarm(): Promise<void> {
    await this.serially(() => this.drain());
  }

  /** The chat's own state between updates, beside (not inside) the queue and the journals. */
  private chatState(): ChatState {
    const kv = this.ctx.storage.kv;
    return { get: (name) => kv.get(`${STATE_PREFIX}${name}`), put: (name, value) => kv.put(`${STATE_PREFIX}${name}`, value) };
  }

  private async drain(): Promise<void> {
    const kv = this.ctx.storage.kv;
    for (;;) {
      const [next] = [...kv.list<QueuedUpdate>({ prefix: QUEUE_PREFIX, limit: 1 })];
      if (!next) return;
      const [key, item] = next;
      // Each update's lines carry the id of the request that brought it, and its update_id.
      const fields = { request_id: item.requestId ?? currentRequestId(), update_id: item.update.update_id };
      if (!(await withLogFields(fields, () => this.handleOnce(key, item)))) return;
    }
  }

  /** One attempt at the update at the head of the queue; false when it waits for a retry. */
  private async handleOnce(key: string, item: QueuedUpdate): Promise<boolean> {
    const kv = this.ctx.storage.kv;
    const outcome = await this.handle(item);
    if (!outcome.done) {
      const attempts = item.attempts + 1;
      logFailure("telegram_update_failed", outcome.error, { attempts });
      if (!outcome.permanent && !givenUp(CHAT_RETRY, attempts)) {
        kv.put(key, { ...item, attempts });
        await this.ctx.storage.setAlarm(Date.now() + outcome.afterMs);
        return false;
      }
      await this.giveUp(item);
    }
    kv.delete(key);
    for (const [journalKey] of kv.list({ prefix: journalPrefix(item) })) kv.delete(journalKey);
    return true;
  }

  private async handle(item: QueuedUpdate): Promise<Outcome> {
    try {
      const config = readTelegramConfig(this.env);
      if (!config) throw new Error("TELEGRAM_BOT_TOKEN is not set");
      const services = { deps: this.deps, llm: this.deps.model(), journal: kvJournal(this.ctx.storage.kv, journalPrefix(item)), state: this.chatState(), origin: item.origin };
      await createBot(config, services).handleUpdate(item.update);
      return { done: true };
    } catch (thrown) {
      const error = thrown instanceof BotError ? thrown.error : thrown;
      const backoff = retryDelay(CHAT_RETRY, item.attempts + 1);
      if (error instanceof RetryLater) return { done: false, afterMs: Math.max(error.afterMs, backoff), permanent: false, error };
      // The shared model limiter said when the model may be called again.
      const limited = rateLimitedIn(error);
      if (limited) return { done: false, afterMs: Math.max(limited.retryAfterSeconds * 1000, backoff), permanent: false, error };
      // Telegram refused the call itself (blocked by the user, bad request): trying again cannot help.
      const permanent = error instanceof GrammyError && error.error_code >= 400 && error.error_code < 500;
      return { done: false, afterMs: backoff, permanent, error };
    }
  }

  /** The last attempt failed: the person gets a short message in their language, once. */
  private async giveUp(item: QueuedUpdate): Promise<void> {
    const where = chatOfUpdate(item.update);
    const config = safely(() => readTelegramConfig(this.env));
    if (!where || !config) return;
    const journal = kvJournal(this.ctx.storage.kv, `${journalPrefix(item)}gave-up:`);
    const bot = createBot(config as TelegramConfig, { deps: this.deps, llm: null, journal, state: this.chatState(), origin: item.origin });
    try {
      await bot.api.sendMessage(where.chatId, translator(localeOf(where.languageCode))("error-generic"));
    } catch (error) {
      logFailure("telegram_failure_not_told", error);
    }
  }
}

const journalPrefix = (item: QueuedUpdate) => `journal:${item.update.update_id}:`;

function safely<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}
