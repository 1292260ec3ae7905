import { and, desc, eq } from "drizzle-orm";
import { isoNow } from "../clock";
import { jobRuns } from "../db/schema";
import type { Deps } from "../deps";
import { newId } from "../ids";
import { logFailure } from "../observe/log";

export const JOB_NAMES = ["consolidation", "collection", "retention", "embeddings", "webhooks"] as const;
export type JobName = (typeof JOB_NAMES)[number];

/** What a job did: counts per kind of work, or a short note such as how PRAGMA optimize went. */
export type JobCounts = Record<string, number | string>;

export interface JobRun {
  id: string;
  job: string;
  cron: string | null;
  started_at: string;
  finished_at: string | null;
  counts: Record<string, unknown>;
  error: string | null;
}

/**
 * Runs a job and records it in `job_runs`: a row when it starts, its counts and any error when
 * it ends. The job fills `counts` as it goes, so a failed run still shows what it had done.
 */
export async function runJob(
  deps: Deps,
  job: JobName,
  cron: string | null,
  work: (counts: JobCounts, runId: string) => Promise<void>,
): Promise<JobRun> {
  const id = newId("job");
  const startedAt = isoNow(deps.clock);
  await deps.directory.insert(jobRuns).values({ id, job, cron, startedAt, counts: {} });
  const counts: JobCounts = {};
  let error: string | null = null;
  try {
    await work(counts, id);
  } catch (e) {
    error = (e instanceof Error ? e.message : String(e)).slice(0, 500);
    logFailure("job_failed", e, { job, run_id: id, cron });
  }
  const finishedAt = isoNow(deps.clock);
  try {
    await deps.directory.update(jobRuns).set({ finishedAt, counts, error }).where(eq(jobRuns.id, id));
  } catch (e) {
    logFailure("job_end_not_recorded", e, { job, run_id: id, cron });
  }
  return { id, job, cron, started_at: startedAt, finished_at: finishedAt, counts, error };
}

/** Recent runs, newest first, optionally of one job. */
export async function listJobRuns({ directory }: Pick<Deps, "directory">, filter: { job?: JobName; limit: number }): Promise<JobRun[]> {
  const rows = await directory
    .select()
    .from(jobRuns)
    .where(and(filter.job ? eq(jobRuns.job, filter.job) : undefined))
    .orderBy(desc(jobRuns.startedAt), desc(jobRuns.id))
    .limit(filter.limit);
  return rows.map((r) => ({
    id: r.id,
    job: r.job,
    cron: r.cron,
    started_at: r.startedAt,
    finished_at: r.finishedAt,
    counts: r.counts,
    error: r.error,
  }));
}
