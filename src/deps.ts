import { type Clock, systemClock } from "./clock";
import type { Db } from "./db/client";
import { createShards, type Shards } from "./db/shards";
import type { Semantic } from "./embeddings/ports";
import { createSemantic } from "./embeddings/providers";
import { createLimitedModel } from "./llm/limited-model";
import type { LanguageModel } from "./llm/providers";
import { readWebhookSettings, type WebhookSettings } from "./webhooks/settings";

/** The work queue: the JOBS binding, or a stand-in in tests and the bench; each message names a unit (src/queue/units.ts). */
export interface WorkQueue {
  sendBatch(messages: Iterable<MessageSendRequest<unknown>>, options?: QueueSendBatchOptions): Promise<unknown>;
}

/**
 * What domain functions need from the outside world, one object per entry point (a request, a
 * cron run, a queue batch, a Durable Object). Work in one mind adds the mind's shard to it
 * (`MindContext`); nothing here is "the database" without saying which.
 */
export interface Deps {
  /** Accounts, minds with their shard, keys, grants, Telegram claims, login links, job runs. */
  directory: Db;
  /** Every database holding minds' data, the directory's DB first. */
  shards: Shards;
  clock: Clock;
  /** Recall by meaning and the vector index (null: the deployment has none, or the entry point leaves embedding to the hourly job). */
  semantic: Semantic | null;
  /** Runs work after the response (waitUntil); absent, such work is skipped and left to the hourly job. */
  defer?: (work: Promise<unknown>) => void;
  /** One object per session: the single writer of its history. */
  sessionObjects: Env["SESSIONS"];
  /** One operations object per mind: runs its imports, moves and erasures in the background. */
  mindOperations: Env["MIND_OPERATIONS"];
  /** The work queue cron runs fan out through. */
  queue: WorkQueue;
  /** The model for extraction, consolidation and the bot's answers, behind the shared limiter, built when first asked for (null: none configured). */
  model(): LanguageModel | null;
  /** Webhooks' settings: the key their secrets are sealed under, where their requests may go. */
  webhooks: WebhookSettings;
}

/** What differs between entry points. */
export interface DepsOptions {
  clock?: Clock;
  /** Recall by meaning: built now (fetch, objects that write memories), or left out (null). */
  semantic?: boolean;
  /** The entry point's waitUntil. */
  defer?: (work: Promise<unknown>) => void;
  /** Seen in place of each D1 binding (a test recording statements). */
  wrap?: (d1: D1Database) => D1Database;
}

const noQueue: WorkQueue = {
  sendBatch: () => Promise.reject(new Error("the JOBS queue binding is missing: add the [[queues.producers]] block of wrangler.toml")),
};

/** Built on first call, so a bad setting fails only the work that needs it. */
function once<T>(build: () => T): () => T {
  let built: { value: T } | null = null;
  return () => (built ??= { value: build() }).value;
}

/** The one builder of `Deps`, for every entry point. */
export function createDeps(env: Env, options: DepsOptions = {}): Deps {
  const shards = createShards(options.wrap ? wrapBindings(env, options.wrap) : env);
  return {
    directory: shards.directory,
    shards,
    clock: options.clock ?? systemClock,
    semantic: options.semantic === false ? null : createSemantic(env),
    ...(options.defer && { defer: options.defer }),
    sessionObjects: env.SESSIONS,
    mindOperations: env.MIND_OPERATIONS,
    queue: env.JOBS ?? noQueue,
    model: once(() => createLimitedModel(env)),
    webhooks: readWebhookSettings(env),
  };
}

/** A Durable Object's deps: work deferred past a call is kept alive by the object. */
export function objectDeps(env: Env, state: DurableObjectState, options: { semantic: boolean }): Deps {
  return createDeps(env, { semantic: options.semantic, defer: (work) => state.waitUntil(work) });
}

function wrapBindings(env: Env, wrap: (d1: D1Database) => D1Database): Env {
  const wrapped: Record<string, unknown> = { ...env };
  for (const name of createShards(env).names) wrapped[name] = wrap(wrapped[name] as D1Database);
  return wrapped as unknown as Env;
}

/** Deps working in one shard: a mind's (its context), or each shard in turn (a job scanning every mind on it). */
export type InShard = Deps & { shard: Db };
