import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { queuedUnits } from "../db/schema";

// A unit a producer run enqueued is marked in the database its producer read, with an expiry.
// An overlapping run finds the mark and does not enqueue the unit again; the consumer removes
// the mark when the unit is done, so the next run enqueues whatever became due since; a lost
// message's mark expires and a later run enqueues the unit again. Delivery stays at least once:
// every unit's work is safe to repeat.

/** Longer than a message waits and retries in a busy queue; a later run re-enqueues a unit whose mark expired. */
export const QUEUED_TTL_MS = 3 * 60 * 60 * 1000;

export interface MarkedUnit {
  unit: string;
  /** Marked by this run: its message is to be sent. False: another run's message holds it. */
  fresh: boolean;
}

/**
 * Marks a page of due units (`page` selects a column `unit`) as queued by `run`, in one
 * statement: a unit without a live mark is taken by this run, one with a live mark is left to
 * its holder. Answers every unit of the page, so the caller knows where the page ended.
 */
export async function markPage(db: Db, page: SQL, run: string, now: Date, ttlMs = QUEUED_TTL_MS): Promise<MarkedUnit[]> {
  const at = now.toISOString();
  const expires = new Date(now.getTime() + ttlMs).toISOString();
  // Every SET expression reads the row as it was, so "expired" means the old mark's expiry.
  const expired = sql`queued_units.expires_at <= excluded.queued_at`;
  const rows = await db.all<{ unit: string; run_id: string }>(sql`
    insert into queued_units (unit, run_id, queued_at, expires_at, attempts, last_error)
    select unit, ${run}, ${at}, ${expires}, 0, null from (${page}) where true
    on conflict (unit) do update set
      run_id = case when ${expired} then excluded.run_id else queued_units.run_id end,
      queued_at = case when ${expired} then excluded.queued_at else queued_units.queued_at end,
      attempts = case when ${expired} then 0 else queued_units.attempts end,
      last_error = case when ${expired} then null else queued_units.last_error end,
      expires_at = case when ${expired} then excluded.expires_at else queued_units.expires_at end
    returning unit, run_id`);
  return rows.map((row) => ({ unit: row.unit, fresh: row.run_id === run }));
}

const held = (unit: string, run: string) => and(eq(queuedUnits.unit, unit), eq(queuedUnits.runId, run));

/** The unit is done: the next run may enqueue it again. A mark another run took since is left alone. */
export async function releaseMark(db: Db, unit: string, run: string): Promise<void> {
  await db.delete(queuedUnits).where(held(unit, run));
}

/** Keeps the unit marked until `until` (a mind over its budget waits for the next UTC day). */
export async function holdMark(db: Db, unit: string, run: string, until: Date): Promise<void> {
  await db.update(queuedUnits).set({ expiresAt: until.toISOString() }).where(held(unit, run));
}

/** Records a failed delivery's code on the mark, where the dead-letter consumer finds it. */
export async function noteFailure(db: Db, unit: string, run: string, code: string, attempts: number): Promise<void> {
  await db.update(queuedUnits).set({ attempts, lastError: code.slice(0, 64) }).where(held(unit, run));
}

/** The unit's mark, if any. */
export async function readMark(db: Db, unit: string) {
  return (await db.select().from(queuedUnits).where(eq(queuedUnits.unit, unit)).get()) ?? null;
}


/** What the work queue holds, as the marks tell it: units enqueued and not done, those failing, the oldest. */
export interface QueueBacklog {
  queued: number;
  /** Units whose message failed at least once and is waiting to be retried. */
  retrying: number;
  oldest_queued_at: string | null;
}

/** The marks of every database summed: one statement per database. */
export async function queueBacklog(dbs: Db[], now: Date): Promise<QueueBacklog> {
  const total: QueueBacklog = { queued: 0, retrying: 0, oldest_queued_at: null };
  for (const db of dbs) {
    const row = await db
      .select({
        queued: sql<number>`count(*)`,
        retrying: sql<number>`coalesce(sum(${queuedUnits.attempts} > 0), 0)`,
        oldest: sql<string | null>`min(${queuedUnits.queuedAt})`,
      })
      .from(queuedUnits)
      .where(sql`${queuedUnits.expiresAt} > ${now.toISOString()}`)
      .get();
    if (!row) continue;
    total.queued += row.queued;
    total.retrying += row.retrying;
    if (row.oldest && (total.oldest_queued_at === null || row.oldest < total.oldest_queued_at)) total.oldest_queued_at = row.oldest;
  }
  return total;
}
