import type { Deps, InShard } from "../deps";
import { sql } from "drizzle-orm";
import { LOGIN_LINK_RETENTION_STEP } from "../auth/login-links";
import type { JobCounts } from "../queue/job-runs";
import { DEFAULT_RETENTION, optimizeDatabase, type RetentionOptions, type RetentionStep } from "../db/prune";
import { DIRECTORY } from "../db/shards";
import { TELEGRAM_RETENTION_STEPS } from "../db/telegram-updates";
import { forgetFinishedErasures } from "../portability/erase";
import { IMPORT_RETENTION_STEP } from "../portability/import-jobs";
import { stalledImports } from "./archive-import";
import { stalledErasures } from "./erasure";
import { LONG_TERM_RETENTION_STEPS } from "../notes/retention";
import { SESSION_RETENTION_STEPS } from "../sessions/retention";
import type { QueueJob, WorkOutcome } from "../queue/job";

// Every retention step, in order.
export const RETENTION_STEPS: RetentionStep<InShard>[] = [
  ...LONG_TERM_RETENTION_STEPS,
  ...SESSION_RETENTION_STEPS,
  LOGIN_LINK_RETENTION_STEP,
  ...TELEGRAM_RETENTION_STEPS,
  IMPORT_RETENTION_STEP,
];

/**
 * The daily retention: every mind whose erasure stopped halfway, one message each, and one
 * message per database for the retention steps (a table a database does not use is empty there).
 */
export const retentionJob: QueueJob = {
  name: "retention",
  sources: [
    stalledErasures,
    stalledImports,
    { page: (_shard, after) => (after === null ? sql`select 'retention' as unit` : null) },
  ],
};

/**
 * The retention steps on one database, each in bounded rounds; a step that deleted all its
 * rounds allow sends the unit round again, and PRAGMA optimize runs once nothing is left.
 */
export async function retentionUnit(deps: Deps, shard: string, options: RetentionOptions = DEFAULT_RETENTION): Promise<WorkOutcome> {
  const now = deps.clock.now();
  const inShard = { ...deps, shard: deps.shards.db(shard) };
  const counts: JobCounts = {};
  let more = false;
  for (const step of RETENTION_STEPS) {
    const deleted = await step.run(inShard, now, options);
    counts[step.name] = deleted;
    if (deleted >= options.batchSize * options.maxRounds) more = true;
  }
  if (shard === DIRECTORY) counts.erasures_forgotten = await forgetFinishedErasures(deps, now);
  if (!more) counts.optimize = `${shard}: ${await optimizeDatabase(inShard)}`;
  return { status: "done", counts, more };
}
