import { type SQL, sql } from "drizzle-orm";
import type { InDb } from "./client";

// Retention's shared parts: every step deletes in bounded rounds so one unit of it stays well
// within a Worker's limits (it shares a queue batch with 24 others); what is left is deleted
// by the unit going round again.

export interface RetentionOptions {
  /** Rows one statement deletes at most (and so the full-text index rows its triggers delete). */
  batchSize: number;
  /** Rounds one step runs at most per unit: a round is one statement, or one batch of two. */
  maxRounds: number;
  /** How long an expired memory is kept before it is deleted. */
  expiredGraceMs: number;
  /** How long job runs, finished consolidations and extraction records are kept. */
  bookkeepingDays: number;
  /** How long the model usage ledger is kept. */
  usageDays: number;
}

export const DAY_MS = 86_400_000;

export const DEFAULT_RETENTION: RetentionOptions = {
  batchSize: 500,
  maxRounds: 4,
  expiredGraceMs: 7 * DAY_MS,
  bookkeepingDays: 30,
  usageDays: 400,
};

/**
 * D1 statements one retention unit runs at most: its step's rounds, two statements each (a
 * memory's deletion writes its history row in the same batch), and one more (a step's closing
 * statement, or PRAGMA optimize).
 */
export const retentionUnitStatements = (options: RetentionOptions): number => options.maxRounds * 2 + 1;

/** A step of retention; `D` is what it needs of its entry point (at least the database it deletes in). */
export interface RetentionStep<D extends InDb = InDb> {
  name: string;
  /** Deletes what is due at `now`, in at most `maxRounds` rounds; returns the rows deleted (a full batch each round: more may be due). */
  run(deps: D, now: Date, options: RetentionOptions): Promise<number>;
}

/** Runs `round` until it deletes less than a full batch, or maxRounds times. */
export async function inRounds(options: RetentionOptions, round: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let i = 0; i < options.maxRounds; i++) {
    const deleted = await round();
    total += deleted;
    if (deleted < options.batchSize) break;
  }
  return total;
}

/** Deletes the rows of `table` whose rowids `due` selects; returns how many went. */
export const deleteWhere = async (deps: InDb, table: SQL, due: SQL) =>
  (await deps.shard.all<{ one: number }>(sql`delete from ${table} where rowid in (${due}) returning 1 as one`)).length;

/** Asks SQLite to refresh its query planner statistics; says so when the database refuses. */
export async function optimizeDatabase(deps: InDb): Promise<string> {
  try {
    await deps.shard.run(sql`pragma optimize`);
    return "ran";
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return `skipped: ${message.slice(0, 200)}`;
  }
}
