import { env } from "cloudflare:workers";
import { settleMessage } from "../../src/cron/consume";
import { produceJob } from "../../src/cron/produce";
import { QUEUE_JOBS } from "../../src/cron/schedule";
import type { WorkDeps } from "../../src/cron/work-deps";
import { runJob, type JobCounts, type JobName, type JobRun } from "../../src/work/job-runs";
import type { Deps } from "../../src/deps";
import type { Semantic } from "../../src/embeddings/ports";
import type { LanguageModel } from "../../src/llm/providers";
import type { WorkMessage, WorkQueue } from "../../src/work/units";
import { testDeps } from "./deps";

/** A work queue held in memory: what the producers sent, in order, for a test to deliver by hand. */
export function memoryQueue(): WorkQueue & { messages: WorkMessage[]; delays: (number | undefined)[] } {
  const messages: WorkMessage[] = [];
  const delays: (number | undefined)[] = [];
  return {
    messages,
    delays,
    async sendBatch(batch, options) {
      for (const m of batch) {
        messages.push(structuredClone(m.body));
        delays.push(options?.delaySeconds);
      }
    },
  };
}

/** Work dependencies over the test databases (seen through `wrap`), with a queue held in memory. */
export function workDeps(
  options: Parameters<typeof testDeps>[0] & { llm?: LanguageModel | null; semantic?: Semantic | null; queue?: WorkQueue } = {},
): WorkDeps & { queue: ReturnType<typeof memoryQueue> } {
  const base = testDeps(options);
  const queue = (options.queue ?? memoryQueue()) as ReturnType<typeof memoryQueue>;
  return {
    ...(base as Deps),
    shards: base.shards!,
    sessionObjects: env.SESSIONS,
    mindJobs: env.MIND_JOBS,
    queue,
    loadModel: () => options.llm ?? null,
    loadSemantic: () => options.semantic ?? null,
  };
}

/** Adds one outcome's counts to a tally: numbers summed, text kept side by side. */
export function addCounts(into: JobCounts, counts: JobCounts): void {
  for (const [key, value] of Object.entries(counts)) {
    const had = into[key];
    if (typeof value === "number" && (had === undefined || typeof had === "number")) into[key] = (had ?? 0) + value;
    else into[key] = had === undefined ? value : `${had}; ${value}`;
  }
}

/**
 * Delivers every message on the queue (and those sent while delivering) once, in order, through
 * the consumer's own handling; a message its unit asks to retry is dropped, as if it waited in
 * the queue. Answers the outcomes' counts summed, with how many units ended each way.
 */
export async function drain(deps: WorkDeps & { queue: ReturnType<typeof memoryQueue> }): Promise<JobCounts> {
  const counts: JobCounts = {};
  while (deps.queue.messages.length > 0) {
    const message = deps.queue.messages.shift()!;
    deps.queue.delays.shift();
    const settled = await settleMessage(deps, message, 1);
    if (!settled.outcome) continue;
    addCounts(counts, { [`units_${settled.outcome.status}`]: 1 });
    if (settled.outcome.status === "done" && settled.outcome.counts) addCounts(counts, settled.outcome.counts);
    if (settled.outcome.status === "wait") addCounts(counts, { [settled.outcome.reason]: 1 });
    if (settled.outcome.status === "retry") addCounts(counts, { failed: 1, [`failed_${settled.outcome.code}`]: 1 });
  }
  return counts;
}

/**
 * One cron run of a job as the Worker runs it (recorded in job_runs), then every message it
 * enqueued delivered once: what tests used to get from the job's serial loop.
 */
export async function runJobNow(deps: WorkDeps & { queue: ReturnType<typeof memoryQueue> }, job: JobName): Promise<{ run: JobRun; counts: JobCounts }> {
  const run = await runJob(deps, job, null, (produced, runId) => produceJob(deps, QUEUE_JOBS[job], runId, produced));
  if (run.error) throw new Error(`the ${job} producer failed: ${run.error}`);
  const counts = await drain(deps);
  return { run, counts: { ...(run.counts as JobCounts), ...counts } };
}

/** Work dependencies over dependencies a test already built (a clock, a model, a vector index), with a queue in memory. */
export function workDepsOf(deps: Deps & { llm?: LanguageModel | null }): WorkDeps & { queue: ReturnType<typeof memoryQueue> } {
  if (!deps.shards) throw new Error("work dependencies need every database: build them with testDeps() without d1");
  return {
    ...deps,
    shards: deps.shards,
    sessionObjects: env.SESSIONS,
    mindJobs: env.MIND_JOBS,
    queue: memoryQueue(),
    loadModel: () => deps.llm ?? null,
    loadSemantic: () => deps.semantic ?? null,
  };
}

/** A job's cron run and its messages delivered (runJobNow) over a test's dependencies; its counts are added to `counts`. */
export async function runNow(job: JobName, deps: Deps & { llm?: LanguageModel | null }, counts: JobCounts = {}): Promise<JobCounts> {
  Object.assign(counts, (await runJobNow(workDepsOf(deps), job)).counts);
  return counts;
}
