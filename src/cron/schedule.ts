import { systemClock, type Clock } from "../clock";
import { readLlmConfig, type Env } from "../config";
import { createDeps, type Deps } from "../deps";
import { createLanguageModel } from "../llm/providers";
import { collectSessionNotes } from "../sessions/messages";
import { runConsolidationJob } from "./consolidation";
import { runJob, type JobName, type JobRun } from "../db/job-runs";
import { createSemantic } from "../embeddings/providers";
import { runEmbeddingsJob } from "./embeddings";
import { runRetentionJob } from "./retention";

/** Cron expression → the jobs it runs, in order. Must match `[triggers] crons` in wrangler.toml. */
export const CRON_JOBS: Record<string, JobName[]> = {
  "0 * * * *": ["consolidation", "embeddings"],
  "30 3 * * *": ["collection", "retention"],
};

// Sessions extracted per daily run at most; the rest are the next day's (each also extracts on its own alarm).
const COLLECTION_LIMIT = 200;

const JOBS: Record<JobName, (deps: Deps, env: Env, counts: Record<string, number | string>) => Promise<void>> = {
  // The model is built inside the job, so a bad model setting fails (and records) this job only.
  consolidation: (deps, env, counts) => runConsolidationJob({ ...deps, llm: createLanguageModel(readLlmConfig(env)) }, counts),
  collection: async (deps, env, counts) => {
    Object.assign(counts, await collectSessionNotes({ ...deps, sessionObjects: env.SESSIONS }, COLLECTION_LIMIT));
  },
  // Finishing an erasure removes the mind's vectors as the request does.
  retention: (deps, env, counts) => runRetentionJob({ ...deps, sessionObjects: env.SESSIONS, semantic: createSemantic(env) }, counts),
  // Built inside the job, so a bad embeddings setting fails (and records) this job only.
  embeddings: (deps, env, counts) => runEmbeddingsJob({ ...deps, semantic: createSemantic(env) }, counts),
};

/** Runs the jobs of a cron expression, each recorded in job_runs. An unknown expression is an error. */
export async function runCron(cron: string, env: Env, clock: Clock = systemClock): Promise<JobRun[]> {
  const jobs = CRON_JOBS[cron];
  if (!jobs) {
    const known = Object.keys(CRON_JOBS).map((expression) => `"${expression}"`).join(", ");
    throw new Error(`no job is scheduled for cron "${cron}": the crons are ${known}`);
  }
  const deps = createDeps(env, clock);
  const runs: JobRun[] = [];
  for (const job of jobs) runs.push(await runJob(deps, job, cron, (counts) => JOBS[job](deps, env, counts)));
  return runs;
}
