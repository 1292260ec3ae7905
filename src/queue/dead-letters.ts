import { and, asc, count, desc, eq, inArray, sql } from "drizzle-orm";
import { deadLetters, queuedUnits } from "../db/schema";
import type { Deps, WorkQueue } from "../deps";
import { newId } from "../ids";
import { readMark } from "./marks";
import { parseUnit, sendAll, type UnitKind, unitSubject, type WorkMessage } from "./units";

// A message that failed every retry lands on the dead-letter queue; its consumer records it here,
// in the directory, with the code of its last failure (kept on its mark by the consumer), never
// an error's text. The unit's mark is held for a day, so the hourly runs do not send a failing
// unit round again; an operator sends dead letters back at once with a re-drive.

/** How long a dead unit waits before a producer run may enqueue it again by itself. */
export const DEAD_HOLD_MS = 24 * 60 * 60 * 1000;

export interface DeadLetter {
  unit: string;
  shard: string;
  kind: string;
  mind_id: string | null;
  namespace: string | null;
  error_code: string;
  attempts: number;
  deaths: number;
  first_at: string;
  last_at: string;
}

/** Records a dead message (a message that is not ours is recorded as `unknown`); answers the code of its last failure. */
export async function recordDeadLetter(deps: Deps, message: WorkMessage, attempts: number): Promise<string> {
  const unit = parseUnit(message.unit);
  const now = deps.clock.now();
  const shardDb = deps.shards.db(message.shard);
  const mark = await readMark(shardDb, message.unit);
  const errorCode = mark?.runId === message.run && mark.lastError ? mark.lastError : "unknown";
  const subject = unit ? unitSubject(unit) : { mindId: null, namespace: null };
  const at = now.toISOString();
  const row = {
    unit: message.unit.slice(0, 300),
    shard: message.shard.slice(0, 64),
    kind: unit?.kind ?? "unknown",
    mindId: subject.mindId,
    namespace: subject.namespace,
    errorCode,
    attempts: Math.max(attempts, mark?.attempts ?? 0),
    deaths: 1,
    firstAt: at,
    lastAt: at,
  };
  await deps.directory
    .insert(deadLetters)
    .values(row)
    .onConflictDoUpdate({
      target: [deadLetters.shard, deadLetters.unit],
      set: { errorCode, attempts: row.attempts, deaths: sql`${deadLetters.deaths} + 1`, lastAt: at },
    });
  await shardDb
    .update(queuedUnits)
    .set({ expiresAt: new Date(now.getTime() + DEAD_HOLD_MS).toISOString() })
    .where(and(eq(queuedUnits.unit, message.unit), eq(queuedUnits.runId, message.run)));
  return errorCode;
}

const toDeadLetter = (r: typeof deadLetters.$inferSelect): DeadLetter => ({
  unit: r.unit,
  shard: r.shard,
  kind: r.kind,
  mind_id: r.mindId,
  namespace: r.namespace,
  error_code: r.errorCode,
  attempts: r.attempts,
  deaths: r.deaths,
  first_at: r.firstAt,
  last_at: r.lastAt,
});

/** The newest dead letters, and how many there are of each kind and code. */
export async function listDeadLetters(deps: Deps, limit: number): Promise<{ total: number; by_code: { kind: string; error_code: string; count: number }[]; letters: DeadLetter[] }> {
  const db = deps.directory;
  const [rows, groups] = await db.batch([
    db.select().from(deadLetters).orderBy(desc(deadLetters.lastAt)).limit(limit),
    db
      .select({ kind: deadLetters.kind, error_code: deadLetters.errorCode, count: count() })
      .from(deadLetters)
      .groupBy(deadLetters.kind, deadLetters.errorCode)
      .orderBy(desc(count()))
      .limit(100),
  ]);
  return { total: groups.reduce((n, g) => n + g.count, 0), by_code: groups, letters: rows.map(toDeadLetter) };
}

/**
 * Sends up to `limit` dead letters (the oldest, optionally of one kind) back to the work queue
 * under a new run, and forgets them; answers how many went back. Sending one twice is safe.
 */
export async function redriveDeadLetters(deps: Deps, queue: WorkQueue, filter: { limit: number; kind?: UnitKind }): Promise<number> {
  const db = deps.directory;
  const letters = await db
    .select({ unit: deadLetters.unit, shard: deadLetters.shard })
    .from(deadLetters)
    .where(filter.kind ? eq(deadLetters.kind, filter.kind) : undefined)
    .orderBy(asc(deadLetters.lastAt))
    .limit(filter.limit);
  if (letters.length === 0) return 0;
  const run = newId("redrive");
  const now = deps.clock.now();
  const expires = new Date(now.getTime() + DEAD_HOLD_MS).toISOString();
  // The marks first: a unit sent back is held by this run, so the hourly runs leave it to this message.
  const mark = { runId: run, queuedAt: now.toISOString(), expiresAt: expires, attempts: 0, lastError: null };
  for (const shard of new Set(letters.map((l) => l.shard))) {
    const units = letters.filter((l) => l.shard === shard).map((l) => l.unit);
    // D1 binds at most 100 values a statement: six a mark.
    for (let i = 0; i < units.length; i += 15) {
      await deps.shards.db(shard)
        .insert(queuedUnits)
        .values(units.slice(i, i + 15).map((unit) => ({ unit, ...mark })))
        .onConflictDoUpdate({ target: queuedUnits.unit, set: mark });
    }
  }
  await sendAll(queue, letters.map((l) => ({ unit: l.unit, shard: l.shard, run })));
  for (const shard of new Set(letters.map((l) => l.shard))) {
    const units = letters.filter((l) => l.shard === shard).map((l) => l.unit);
    for (let i = 0; i < units.length; i += 90) {
      await db.delete(deadLetters).where(and(eq(deadLetters.shard, shard), inArray(deadLetters.unit, units.slice(i, i + 90))));
    }
  }
  return letters.length;
}
