import type { Deps } from "../deps";
import { sql } from "drizzle-orm";
import { LOGIN_LINK_RETENTION_STEP } from "../auth/login-links";
import type { JobCounts } from "../work/job-runs";
import { DEFAULT_RETENTION, optimizeDatabase, type RetentionOptions, type RetentionStep } from "../db/retention";
import { DIRECTORY } from "../db/shards";
import { TELEGRAM_RETENTION_STEPS } from "../db/telegram-updates";
import { ERASURE_STALE_MS, finishInterruptedErasure, forgetFinishedErasures } from "../portability/erase";
import { IMPORT_RETENTION_STEP, IMPORT_STALLED_MS } from "../portability/import-jobs";
import { startJob } from "../portability/mind-jobs";
import { LONG_TERM_RETENTION_STEPS } from "../notes/retention";
import { SESSION_RETENTION_STEPS } from "../sessions/retention";
import { idsAfter, type QueueJob, type WorkOutcome } from "./work-deps";

// Every retention step, in order.
export const RETENTION_STEPS: RetentionStep[] = [
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
    {
      page(shard, after, limit, now) {
        if (shard !== DIRECTORY) return null;
        const [mindId] = idsAfter(after);
        const staleBefore = new Date(now.getTime() - ERASURE_STALE_MS).toISOString();
        const from = mindId === undefined ? sql`` : sql`and mind_id > ${mindId}`;
        return sql`select 'erase ' || mind_id as unit from mind_erasures
          where finished_at is null and started_at < ${staleBefore} ${from} order by mind_id limit ${limit}`;
      },
    },
    {
      // On the mind's database: imports whose object stopped writing them (see importUnit).
      page(_shard, after, limit, now) {
        const from = after === null ? sql`` : sql`and 'import ' || mind_id || ' ' || id > ${after}`;
        return sql`select 'import ' || mind_id || ' ' || id as unit from import_jobs
          where state in ('checking', 'queued', 'running', 'undoing') and updated_at < ${stalledBefore(now)} ${from}
          order by mind_id, id limit ${limit}`;
      },
    },
    { page: (_shard, after) => (after === null ? sql`select 'retention' as unit` : null) },
  ],
};

const stalledBefore = (now: Date) => new Date(now.getTime() - IMPORT_STALLED_MS).toISOString();

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

/**
 * Hands an import that stopped moving to the mind's job object, which goes on from the job's
 * progress in import_jobs (waking it is harmless if it still runs). This is how an import
 * written by the import objects of earlier deployments (deleted with their class, keeping only
 * the job's id and a failure count) resumes: everything else about it is in the database.
 */
export async function importUnit(deps: Deps, unit: { mindId: string; jobId: string }): Promise<WorkOutcome> {
  await startJob(deps, { kind: "import", mindId: unit.mindId, jobId: unit.jobId });
  return { status: "done", counts: { imports_resumed: 1 } };
}

/** Finishes a mind's erasure that stopped halfway (src/portability/erase.ts): every step is safe to repeat. */
export async function eraseUnit(deps: Deps, unit: { mindId: string }): Promise<WorkOutcome> {
  const finished = await finishInterruptedErasure(deps, unit.mindId);
  return { status: "done", counts: { erasures_finished: finished ? 1 : 0 } };
}
