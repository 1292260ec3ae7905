import { DurableObject } from "cloudflare:workers";
import type { Env } from "../config";
import { objectDeps, type Deps } from "../deps";
import { abandonImport, runImport, type ImportJob } from "./import-jobs";
import { createPacer } from "./import-pace";
import { ALARM_SLICE_MS, retryPause } from "./job-alarm";
import { loggable } from "../errors";
import { serialQueue } from "../serial";

const JOB_KEY = "job";
const FAILURES_KEY = "failures";

/** Slices one alarm writes at most (a slice costs about four D1 calls). */
const ALARM_SLICES = 10;
/** Consecutive failed runs before the job is given up and undone; the waits between them double. */
const MAX_FAILURES = 8;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 64_000;
/** After each stretch of work the object rests this many times as long, leaving the isolate and D1 to others. */
const REST_PER_WORK = 0.5;

interface JobRef {
  mindId: string;
  jobId: string;
}

declare module "../config" {
  interface Env {
    /** One import object per import job: the single writer of its rows. */
    IMPORTS: DurableObjectNamespace<ImportObject>;
  }
}

/** The object of an import job: one per job id, wherever it is asked for from. */
export function importObject(namespace: DurableObjectNamespace<ImportObject>, jobId: string) {
  return namespace.get(namespace.idFromName(jobId));
}

/**
 * One per import job (named by its id): the single writer of the job's rows. An alarm writes
 * slices for a few seconds at a time and sets the next one until the job is done; a run that
 * fails is retried later from the job's progress, and after MAX_FAILURES the job is undone.
 * Runs are serialised, because every D1 await lets the next call in.
 */
export class ImportObject extends DurableObject<Env> {
  private readonly deps: Deps;
  private readonly serially = serialQueue();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.deps = objectDeps(env, ctx, { semantic: true });
  }

  /** Takes the job and starts writing it in the background. */
  async begin(mindId: string, jobId: string): Promise<void> {
    this.ctx.storage.kv.put(JOB_KEY, { mindId, jobId } satisfies JobRef);
    await this.ctx.storage.setAlarm(Date.now());
  }

  /**
   * Writes the job now, for up to `budgetMs`, and answers it as it then stands; what is left
   * (or a failed run) goes on in the background.
   */
  async runFor(budgetMs: number): Promise<ImportJob | null> {
    return this.serially(() => this.run(budgetMs, Infinity));
  }

  override async alarm(): Promise<void> {
    await this.serially(() => this.run(ALARM_SLICE_MS, ALARM_SLICES));
  }

  private async run(budgetMs: number, maxSlices: number): Promise<ImportJob | null> {
    const ref = this.ctx.storage.kv.get<JobRef>(JOB_KEY);
    if (!ref) return null;
    const until = Date.now() + budgetMs;
    let slices = 0;
    try {
      const more = () => Date.now() < until && slices++ < maxSlices;
      const job = await runImport(this.deps, ref.mindId, ref.jobId, more, createPacer(REST_PER_WORK));
      this.ctx.storage.kv.delete(FAILURES_KEY);
      if (job && (job.state === "queued" || job.state === "running" || job.state === "undoing")) await this.ctx.storage.setAlarm(Date.now());
      else await this.end();
      return job;
    } catch (err) {
      const failures = (this.ctx.storage.kv.get<number>(FAILURES_KEY) ?? 0) + 1;
      this.ctx.storage.kv.put(FAILURES_KEY, failures);
      console.error("an import run failed; it resumes from its progress", ref.jobId, failures, loggable(err));
      if (failures >= MAX_FAILURES) {
        const undone = await abandonImport(this.deps, ref.mindId, ref.jobId).catch(() => undefined);
        if (undone !== undefined && undone?.state !== "undoing") {
          await this.end();
          return undone;
        }
      }
      await this.ctx.storage.setAlarm(Date.now() + retryPause(failures, FIRST_RETRY_MS, MAX_RETRY_MS));
      return null;
    }
  }

  /** The job has ended (or is gone): the object keeps nothing. */
  private async end(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }
}
