import { DurableObject } from "cloudflare:workers";
import type { Env } from "../config";
import { objectDeps, type Deps } from "../deps";
import { createPacer } from "./import-pace";
import { ALARM_SLICE_MS, retryPause } from "./job-alarm";
import { advanceMove, isMoveRunning, recordMoveFailure } from "./move";
import { loggable } from "../errors";

const MIND_KEY = "mind";
/** A failed step is retried after 2, 4, 8, … seconds, at most this long. */
const FIRST_PAUSE_MS = 2_000;
const MAX_PAUSE_MS = 5 * 60_000;
/** After each stretch of steps the object rests this many times as long, leaving the isolate and D1 to others. */
const REST_PER_WORK = 0.5;

declare module "../config" {
  interface Env {
    /** One object per mind: runs that mind's background jobs (a move between shards) in bounded slices. */
    MIND_JOBS: DurableObjectNamespace<MindJobObject>;
  }
}

/** The mind's job object: one per mind, wherever it is asked for from. */
export function mindJobObject(namespace: DurableObjectNamespace<MindJobObject>, mindId: string) {
  return namespace.get(namespace.idFromName(mindId));
}

/**
 * One per mind (named by its id): drives the mind's move to completion from its alarm, one
 * bounded step after another, so no request has to last as long as the move. Only the alarm
 * runs steps, so they never overlap; a failed step is retried with a growing pause, and a
 * restarted object resumes from what the directory records.
 */
export class MindJobObject extends DurableObject<Env> {
  private readonly deps: Deps;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // A move copies rows and leaves their vectors as they are: it needs no embedder.
    this.deps = objectDeps(env, ctx, { semantic: false });
  }

  /** Runs the mind's job from now on (again, if it was paused after a failure). */
  async run(mindId: string): Promise<void> {
    this.ctx.storage.kv.put(MIND_KEY, mindId);
    await this.ctx.storage.setAlarm(Date.now());
  }

  override async alarm(): Promise<void> {
    const mindId = this.ctx.storage.kv.get<string>(MIND_KEY);
    if (!mindId) return;
    const until = Date.now() + ALARM_SLICE_MS;
    // Steps are a few D1 calls each: without a yield between them, requests wait for the whole slice.
    const pause = createPacer(REST_PER_WORK);
    try {
      let state = await advanceMove(this.deps, mindId);
      while (isMoveRunning(state) && Date.now() < until) {
        await pause();
        state = await advanceMove(this.deps, mindId);
      }
      if (isMoveRunning(state)) await this.ctx.storage.setAlarm(Date.now());
      else this.ctx.storage.kv.delete(MIND_KEY);
    } catch (error) {
      console.error("a step of a mind's move failed; it is retried", mindId, loggable(error));
      const attempts = await recordMoveFailure(this.deps, mindId, error).catch(() => 1);
      await this.ctx.storage.setAlarm(Date.now() + retryPause(attempts, FIRST_PAUSE_MS, MAX_PAUSE_MS));
    }
  }
}
