import type { SQL } from "drizzle-orm";
import type { Deps, InShard } from "../deps";
import type { JobCounts, JobName } from "./job-runs";
import type { Unit } from "./units";

/** What handling one unit came to. */
export type UnitOutcome =
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
  skipped?(deps: Deps): string | null;
  /** Bookkeeping on each database before paging (freeing claims left by stopped consolidations). */
  beforeShard?(deps: InShard, counts: JobCounts): Promise<void>;
}

/** How each kind of unit is worked on. */
export type UnitHandlers = { [K in Unit["kind"]]: (deps: Deps, unit: Extract<Unit, { kind: K }>, shard: string) => Promise<UnitOutcome> };

/** The ids after a unit's kind: where the previous page ended. */
export const idsAfter = (after: string | null): string[] => (after === null ? [] : after.split(" ").slice(1));

/** The next UTC midnight: when a mind's daily token budget starts again. */
export function nextUtcDay(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}
