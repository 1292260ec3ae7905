import type { Clock } from "../clock";
import type { Env } from "../config";
import { runJob, type JobName, type JobRun } from "./job-runs";
import { produceJob } from "./produce";
import { createDeps, type Deps } from "../deps";
import type { QueueJob } from "./job";

/** What the crons run: each expression's jobs in order (must match `[triggers] crons` in wrangler.toml), and each job's producer. */
export interface Schedule {
  crons: Record<string, JobName[]>;
  jobs: Record<JobName, QueueJob>;
}

/**
 * Runs the jobs of a cron expression as producers: each enqueues its due units and is recorded
 * in job_runs with what it enqueued. An unknown expression is an error.
 */
export async function runCron(schedule: Schedule, cron: string, env: Env, clock?: Clock): Promise<JobRun[]> {
  return runCronWith(createDeps(env, { clock }), schedule, cron);
}

/** The same over dependencies already built (a test's queue, the bench's recording databases). */
export async function runCronWith(deps: Deps, schedule: Schedule, cron: string): Promise<JobRun[]> {
  const jobs = schedule.crons[cron];
  if (!jobs) {
    const known = Object.keys(schedule.crons).map((expression) => `"${expression}"`).join(", ");
    throw new Error(`no job is scheduled for cron "${cron}": the crons are ${known}`);
  }
  const runs: JobRun[] = [];
  for (const job of jobs) runs.push(await runJob(deps, job, cron, (counts, runId) => produceJob(deps, schedule.jobs[job], runId, counts)));
  return runs;
}
