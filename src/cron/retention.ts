import { LOGIN_LINK_RETENTION_STEP } from "../auth/login-links";
import { everyShard } from "../db/client";
import type { JobCounts } from "../db/job-runs";
import { DEFAULT_RETENTION, optimizeDatabase, type RetentionOptions, type RetentionStep } from "../db/retention";
import { TELEGRAM_RETENTION_STEPS } from "../db/telegram-updates";
import { IMPORT_RETENTION_STEP } from "../minds/import-jobs";
import { finishInterruptedErasures, type EraseDeps } from "../minds/erase";
import { LONG_TERM_RETENTION_STEPS } from "../notes/retention";
import { SESSION_RETENTION_STEPS } from "../sessions/retention";

// Every retention step, in order.
export const RETENTION_STEPS: RetentionStep[] = [
  ...LONG_TERM_RETENTION_STEPS,
  ...SESSION_RETENTION_STEPS,
  LOGIN_LINK_RETENTION_STEP,
  ...TELEGRAM_RETENTION_STEPS,
  IMPORT_RETENTION_STEP,
];

/**
 * The daily retention job, on every database (a table a database does not use is empty
 * there): erasures of minds left unfinished are finished, each step's deleted rows are counted
 * over all databases, then PRAGMA optimize runs on each.
 */
export async function runRetentionJob(deps: EraseDeps, counts: JobCounts, options: RetentionOptions = DEFAULT_RETENTION): Promise<void> {
  const now = deps.clock.now();
  // First: a mind whose erasure stopped halfway is finished before its rows are counted below.
  counts.erasures_finished = await finishInterruptedErasures(deps, now);
  const shards = everyShard(deps);
  for (const step of RETENTION_STEPS) counts[step.name] = 0;
  const optimized: string[] = [];
  for (const shard of shards) {
    const inShard = { ...deps, db: shard.db };
    for (const step of RETENTION_STEPS) counts[step.name] = Number(counts[step.name]) + (await step.run(inShard, now, options));
    optimized.push(shards.length === 1 ? await optimizeDatabase(inShard) : `${shard.name}: ${await optimizeDatabase(inShard)}`);
  }
  counts.optimize = optimized.join("; ");
}
