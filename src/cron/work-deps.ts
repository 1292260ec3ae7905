import type { SQL } from "drizzle-orm";
import { systemClock, type Clock } from "../clock";
import type { Env } from "../config";
import type { JobCounts, JobName } from "../work/job-runs";
import { createDeps, type ShardedDeps } from "../deps";
import type { Semantic } from "../embeddings/ports";
import { createSemantic } from "../embeddings/providers";
import { createLimitedModel } from "../llm/limited-model";
import type { LanguageModel } from "../llm/providers";
import type { MindJobsDeps } from "../portability/mind-jobs";
import type { SessionDeps } from "../sessions/objects";
import type { Unit, WorkQueue } from "../work/units";

/**
 * What the producers and the consumers need, built once per cron run or message batch: every
 * database, the clock, the session objects, the work queue, and the model and embedder, built
 * when first asked for, so a bad model setting fails the units that need one, not the rest.
 */
export interface WorkDeps extends ShardedDeps, Pick<SessionDeps, "sessionObjects"> {
  queue: WorkQueue;
  /** The minds' job objects, which resume imports that stopped; absent, such imports wait. */
  mindJobs?: MindJobsDeps["mindJobs"];
  loadModel(): LanguageModel | null;
  loadSemantic(): Semantic | null;
}

const noQueue: WorkQueue = {
  sendBatch: () => Promise.reject(new Error("the JOBS queue binding is missing: add the [[queues.producers]] block of wrangler.toml")),
};

function once<T>(build: () => T): () => T {
  let built: { value: T } | null = null;
  return () => (built ??= { value: build() }).value;
}

/** The dependencies of the scheduled() and queue() entry points. */
export function createWorkDeps(env: Env, clock: Clock = systemClock): WorkDeps {
  return {
    ...createDeps(env, clock),
    sessionObjects: env.SESSIONS,
    queue: env.JOBS ?? noQueue,
    mindJobs: env.MIND_JOBS,
    loadModel: once(() => createLimitedModel(env)),
    loadSemantic: once(() => createSemantic(env)),
  };
}

/** What handling one unit came to. */
export type WorkOutcome =
  /** Done; `more`: as much as one message does, and more is due, so the unit is sent again. */
  | { status: "done"; counts?: JobCounts; more?: boolean }
  /** Nothing failed, but the unit waits (a mind over its daily budget, until the UTC day turns). */
  | { status: "wait"; until: Date; reason: string }
  /** Failed: retried with backoff (or after `retryAfterSeconds`), then dead-lettered. */
  | { status: "retry"; code: string; retryAfterSeconds?: number };

/** A source of due units on one database: a page of them as SQL selecting `unit`. */
export interface UnitSource {
  /** The page after `after` (the previous page's last unit), at most `limit`; null: nothing on this database. */
  page(shard: string, after: string | null, limit: number, now: Date): SQL | null;
}

/** A background job as a cron run produces it: where its due units are found. */
export interface QueueJob {
  name: JobName;
  sources: UnitSource[];
  /** Why the job has nothing to do on this deployment (no embeddings configured), or null. */
  skipped?(deps: WorkDeps): string | null;
  /** Bookkeeping on each database before paging (freeing claims left by stopped consolidations). */
  beforeShard?(deps: WorkDeps, counts: JobCounts): Promise<void>;
}

/** How each kind of unit is worked on. */
export type UnitHandlers = { [K in Unit["kind"]]: (deps: WorkDeps, unit: Extract<Unit, { kind: K }>, shard: string) => Promise<WorkOutcome> };

/** The ids after a unit's kind: where the previous page ended. */
export const idsAfter = (after: string | null): string[] => (after === null ? [] : after.split(" ").slice(1));

/** The next UTC midnight: when a mind's daily token budget starts again. */
export function nextUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}
