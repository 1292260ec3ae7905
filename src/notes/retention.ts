import { type SQL, sql } from "drizzle-orm";
import { DAY_MS, deleteWhere, inRounds, type RetentionStep } from "../db/prune";
import { memories, memoryHistory } from "../db/schema";
import type { InShard } from "../deps";
import { utcDay } from "../llm/ledger";

// Retention of long-term data: notes, memories and memory history of minds with
// `retention_hours` (measured from the last refresh), memories long past their expiry, and
// the service's own bookkeeping.

/**
 * A batch of rowids of `table`'s rows, of minds with retention_hours, whose `column` (an ISO
 * text timestamp) is older than `now` minus those hours.
 */
const pastRetention = (table: "notes" | "memories" | "memory_history", column: "created_at" | "updated_at" | "at", now: Date, batchSize: number) => {
  const rows = sql.raw(table);
  return sql`select ${rows}.rowid from ${rows} join minds on minds.id = ${rows}.mind_id
    where minds.retention_hours is not null
      and ${rows}.${sql.raw(column)} < strftime('%Y-%m-%dT%H:%M:%fZ', ${now.toISOString()}, '-' || minds.retention_hours || ' hours')
    order by ${rows}.rowid limit ${batchSize}`;
};

/** Deletes a batch of memories picked by `due` (a query of memory rowids), leaving a history row without content. */
async function deleteMemories(deps: InShard, due: SQL, action: string, now: string): Promise<number> {
  // Both statements pick the same rows: the history insert does not change memories, and a batch is one transaction.
  const { shard } = deps;
  const picked = sql`${memories}.rowid in (${due})`;
  const [, deleted] = await shard.batch([
    shard.insert(memoryHistory).select(
      shard
        .select({
          id: sql<null>`null`.as("id"),
          mindId: memories.mindId,
          memoryId: memories.id,
          action: sql<string>`${action}`.as("action"),
          actor: sql<string>`'system:retention'`.as("actor"),
          oldContent: sql<null>`null`.as("old_content"),
          newContent: sql<null>`null`.as("new_content"),
          at: sql<string>`${now}`.as("at"),
          changes: sql<null>`null`.as("changes"),
        })
        .from(memories)
        .where(picked),
    ),
    shard.delete(memories).where(picked).returning({ id: memories.id }),
  ]);
  return deleted.length;
}

export const LONG_TERM_RETENTION_STEPS: RetentionStep<InShard>[] = [
  {
    name: "notes_past_retention",
    run: (deps, now, o) =>
      inRounds(o, () =>
        deleteWhere(deps, sql`notes`, pastRetention("notes", "created_at", now, o.batchSize)),
      ),
  },
  {
    name: "memories_past_retention",
    run: (deps, now, o) =>
      inRounds(o, () =>
        deleteMemories(deps, pastRetention("memories", "updated_at", now, o.batchSize), "retention", now.toISOString()),
      ),
  },
  {
    name: "memory_history_past_retention",
    run: (deps, now, o) =>
      inRounds(o, () =>
        deleteWhere(deps, sql`memory_history`, pastRetention("memory_history", "at", now, o.batchSize)),
      ),
  },
  {
    name: "memories_long_expired",
    run: (deps, now, o) => {
      const expiredBefore = new Date(now.getTime() - o.expiredGraceMs).toISOString();
      return inRounds(o, () =>
        deleteMemories(
          deps,
          sql`select rowid from memories where expires_at is not null and expires_at < ${expiredBefore}
              order by rowid limit ${o.batchSize}`,
          "expired",
          now.toISOString(),
        ),
      );
    },
  },
  bookkeepingStep("job_runs", (before, limit) => sql`select rowid from job_runs where started_at < ${before} limit ${limit}`),
  bookkeepingStep(
    "consolidations",
    (before, limit) => sql`select rowid from consolidations where status != 'running' and started_at < ${before} limit ${limit}`,
  ),
  bookkeepingStep("note_extractions", (before, limit) => sql`select rowid from note_extractions where created_at < ${before} limit ${limit}`),
  {
    name: "llm_usage",
    run: (deps, now, o) => {
      const usageBefore = utcDay(new Date(now.getTime() - o.usageDays * DAY_MS));
      return inRounds(o, () => deleteWhere(deps, sql`llm_usage`, sql`select rowid from llm_usage where day < ${usageBefore} limit ${o.batchSize}`));
    },
  },
];

/** The service's own records kept bookkeepingDays: `due` picks a batch of rowids older than `before`. */
function bookkeepingStep(table: string, due: (before: string, limit: number) => SQL): RetentionStep<InShard> {
  return {
    name: table,
    run: (deps, now, o) => {
      const before = new Date(now.getTime() - o.bookkeepingDays * DAY_MS).toISOString();
      return inRounds(o, () => deleteWhere(deps, sql.raw(table), due(before, o.batchSize)));
    },
  };
}
