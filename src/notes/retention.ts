import { type SQL, sql } from "drizzle-orm";
import { DAY_MS, deleteWhere, inRounds, type RetentionStep } from "../db/prune";
import type { InShard } from "../deps";
import { utcDay } from "../llm/ledger";
import { pastRetention } from "../memory/retention";

// Retention of notes of minds with `retention_hours` (measured from when they were written;
// memories keep theirs in src/memory/retention.ts), and of the service's own bookkeeping.

export const NOTES_RETENTION_STEP: RetentionStep<InShard> = {
  name: "notes_past_retention",
  run: (deps, now, o) =>
    inRounds(o, () =>
      deleteWhere(deps, sql`notes`, pastRetention("notes", "created_at", now, o.batchSize)),
    ),
};

/** The service's own records: job runs, consolidations and extractions, the usage ledger. */
export const BOOKKEEPING_RETENTION_STEPS: RetentionStep<InShard>[] = [
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
