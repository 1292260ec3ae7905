import type { Clock } from "../clock";
import { createDeps, type Deps } from "../deps";
import { createD1Meter } from "../observe/d1-meter";
import { logEvent, newRequestId, withLogFields } from "../observe/log";
import type { DepsWith } from "./consume";
import type { QueueJob } from "./handlers";
import { type JobName, type JobRun, runJob } from "./job-runs";
import { produceJob } from "./produce";

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

/**
 * A cron trigger's invocation: its jobs run as producers, then one log line with each job's
 * outcome and the run's D1 cost. A failed job fails the invocation too, so Cron Trigger logs show it.
 */
export async function runScheduled(depsWith: DepsWith, schedule: Schedule, cron: string): Promise<JobRun[]> {
  const requestId = newRequestId("cron");
  return withLogFields({ request_id: requestId }, () => runScheduledAs(depsWith, schedule, cron, requestId));
}

async function runScheduledAs(depsWith: DepsWith, schedule: Schedule, cron: string, requestId: string): Promise<JobRun[]> {
  const meter = createD1Meter();
  const startedAt = Date.now();
  let runs: JobRun[] = [];
  try {
    runs = await runCronWith(depsWith(meter.wrap), schedule, cron);
  } finally {
    const failed = runs.filter((run) => run.error !== null).map((run) => run.job);
    // No runs: the cron itself failed (an expression the schedule lacks, the directory unreachable).
    const status = runs.length > 0 && failed.length === 0 ? "ok" : "failed";
    logEvent(status === "ok" ? "info" : "error", "cron_run", {
      request_id: requestId,
      cron,
      status,
      jobs: runs.map((run) => run.job).join(" "),
      failed_jobs: failed.length > 0 ? failed.join(" ") : undefined,
      duration_ms: Date.now() - startedAt,
      ...meter.totals(),
    });
  }
  const failed = runs.filter((run) => run.error !== null);
  if (failed.length > 0) throw new Error(`failed jobs: ${failed.map((run) => `${run.job}: ${run.error}`).join("; ")}`);
  return runs;
}
