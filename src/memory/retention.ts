import { type SQL, sql } from "drizzle-orm";
import { deleteWhere, inRounds, type RetentionStep } from "../db/prune";
import { memories, memoryHistory } from "../db/schema";
import type { InShard } from "../deps";

// Retention of memories and their history: those of minds with `retention_hours` (measured
// from the last refresh), and memories long past their expiry.

/**
 * A batch of rowids of `table`'s rows, of minds with retention_hours, whose `column` (an ISO
 * text timestamp) is older than `now` minus those hours.
 */
export const pastRetention = (table: "notes" | "memories" | "memory_history", column: "created_at" | "updated_at" | "at", now: Date, batchSize: number) => {
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

export const MEMORY_RETENTION_STEPS: RetentionStep<InShard>[] = [
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
];
