import type { Clock } from "../clock";
import type { Env } from "../config";
import { runJob, type JobName, type JobRun } from "../work/job-runs";
import { collectionJob } from "./collection";
import { consolidationJob } from "./consolidation";
import { embeddingsJob } from "./embeddings";
import { produceJob } from "./produce";
import { retentionJob } from "./retention";
import { createWorkDeps, type QueueJob, type WorkDeps } from "./work-deps";

/** Cron expression → the jobs it runs, in order. Must match `[triggers] crons` in wrangler.toml. */
export const CRON_JOBS: Record<string, JobName[]> = {
  "0 * * * *": ["consolidation", "embeddings"],
  "30 3 * * *": ["collection", "retention"],
};

/** Each job, as its cron run finds its due units; their handlers are in ./consume.ts. */
export const QUEUE_JOBS: Record<JobName, QueueJob> = {
  consolidation: consolidationJob,
  collection: collectionJob,
  retention: retentionJob,
  embeddings: embeddingsJob,
};

/**
 * Runs the jobs of a cron expression as producers: each enqueues its due units and is recorded
 * in job_runs with what it enqueued. An unknown expression is an error.
 */
export async function runCron(cron: string, env: Env, clock?: Clock): Promise<JobRun[]> {
  return runCronWith(createWorkDeps(env, clock), cron);
}

/** The same over dependencies already built (a test's queue, the bench's recording databases). */
export async function runCronWith(deps: WorkDeps, cron: string): Promise<JobRun[]> {
  const jobs = CRON_JOBS[cron];
  if (!jobs) {
    const known = Object.keys(CRON_JOBS).map((expression) => `"${expression}"`).join(", ");
    throw new Error(`no job is scheduled for cron "${cron}": the crons are ${known}`);
  }
  const runs: JobRun[] = [];
  for (const job of jobs) runs.push(await runJob(deps, job, cron, (counts, runId) => produceJob(deps, QUEUE_JOBS[job], runId, counts)));
  return runs;
}
