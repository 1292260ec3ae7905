import type { Deps, WorkQueue } from "../../src/deps";
import type { Semantic } from "../../src/embeddings/ports";
import { HANDLERS, QUEUE_JOBS, SCHEDULE } from "../../src/jobs";
import { asInvocation, InvocationTally, openInvocations } from "../../src/limits/platform";
import type { LanguageModel } from "../../src/llm/providers";
import { type Settled, settleMessage as settleWith } from "../../src/queue/consume";
import { type JobCounts, type JobName, type JobRun, runJob } from "../../src/queue/job-runs";
import { produceJob } from "../../src/queue/produce";
import { runCronWith as runCronOf } from "../../src/queue/schedule";
import type { WorkMessage } from "../../src/queue/units";
import { testDeps } from "./deps";

/** One delivered message handled as the Worker's queue() consumer handles it, with the product's handlers. */
export const settleMessage = (deps: Deps, body: unknown, attempts: number): Promise<Settled> =>
  asInvocation(new InvocationTally(`queue unit ${(body as Partial<WorkMessage>)?.unit}`), () => settleWith(deps, HANDLERS, body, attempts));

/** A cron run of the product's schedule over dependencies a test built: one invocation. */
export const runCronWith = (deps: Deps, cron: string) => asInvocation(new InvocationTally(`scheduled ${cron}`), () => runCronOf(deps, SCHEDULE, cron));

/** A work queue held in memory: what the producers sent, in order, for a test to deliver by hand. */
export function memoryQueue(): WorkQueue & { messages: WorkMessage[]; delays: (number | undefined)[] } {
  const messages: WorkMessage[] = [];
  const delays: (number | undefined)[] = [];
  return {
    messages,
    delays,
    async sendBatch(batch, options) {
      // A send is a subrequest of the invocation that makes it.
      for (const tally of openInvocations()) tally.chargeSubrequest();
      for (const m of batch) {
        messages.push(structuredClone(m.body) as WorkMessage);
        delays.push(options?.delaySeconds);
      }
    },
  };
}

/** Work dependencies over the test databases (seen through `wrap`), with a queue held in memory. */
export function workDeps(
  options: Parameters<typeof testDeps>[0] & { llm?: LanguageModel | null; semantic?: Semantic | null; queue?: WorkQueue } = {},
): QueueDeps {
  const queue = (options.queue ?? memoryQueue()) as ReturnType<typeof memoryQueue>;
  return { ...testDeps(options), semantic: options.semantic ?? null, queue };
}

/** Deps whose work queue is held in memory. */
export type QueueDeps = Deps & { queue: ReturnType<typeof memoryQueue> };

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
 * the consumer's own handling, each its own invocation (a batch of one); a message its unit asks to retry is dropped, as if it waited in
 * the queue. Answers the outcomes' counts summed, with how many units ended each way.
 */
export async function drain(deps: QueueDeps): Promise<JobCounts> {
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
export async function runJobNow(deps: QueueDeps, job: JobName): Promise<{ run: JobRun; counts: JobCounts }> {
  const run = await asInvocation(new InvocationTally(`scheduled ${job}`), () =>
    runJob(deps, job, null, (produced, runId) => produceJob(deps, QUEUE_JOBS[job], runId, produced)),
  );
  if (run.error) throw new Error(`the ${job} producer failed: ${run.error}`);
  const counts = await drain(deps);
  return { run, counts: { ...(run.counts as JobCounts), ...counts } };
}

/** Work dependencies over dependencies a test already built (a clock, a model, a vector index), with a queue in memory. */
export function workDepsOf(deps: Deps): QueueDeps {
  return { ...deps, queue: memoryQueue() };
}

/** A job's cron run and its messages delivered (runJobNow) over a test's dependencies; its counts are added to `counts`. */
export async function runNow(job: JobName, deps: Deps & { llm?: LanguageModel | null }, counts: JobCounts = {}): Promise<JobCounts> {
  Object.assign(counts, (await runJobNow(workDepsOf(deps), job)).counts);
  return counts;
}
