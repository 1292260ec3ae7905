import { DurableObject } from "cloudflare:workers";
import { type Deps, objectDeps } from "../deps";
import { createSemantic } from "../embeddings/providers";
import { logFailure } from "../observe/log";
import { givenUp, retryDelay } from "../retry";
import { serialQueue } from "../serial";
import { createPacer } from "./import/pace";
import { type OperationRef, operationKey, operationOf } from "./operations";


const QUEUE_KEY = "queue";
const FAILURES_KEY = "failures";
/** Set when an operation is asked for again while it runs: the run that ends then runs it once more. */
const AGAIN_PREFIX = "again:";
/** What this class stored when it ran moves only: the moving mind's id (read once, then converted). */
const LEGACY_MOVE_KEY = "mind";

/**
 * Work one alarm does before it hands over to the next: limits (CPU, D1 queries) are per
 * invocation, and a slice of any operation costs a few D1 calls.
 */
export const ALARM_SLICE_MS = 5_000;
/** After each stretch of work the object rests this many times as long, leaving the isolate and D1 to others. */
const REST_PER_WORK = 0.5;
/** Operations of one mind waiting at most, an erasure aside (the domain already refuses most pairs: see `start`). */
const MAX_QUEUED = 4;

/** Failed runs in a row of the operation at the head of the queue. */
interface Failures {
  key: string;
  count: number;
}

/**
 * One per mind (named by its id): runs the mind's long operations (an import, a move between
 * shards, the end of an erasure) one at a time from its alarm, each in slices of bounded time,
 * so no request lasts as long as the operation. One count of failed runs in a row, one retry
 * policy (src/retry.ts) with each operation's numbers; a restarted object resumes from what the
 * databases record, since every step is safe to repeat. Runs are serialised, because every D1
 * await lets the next call in.
 *
 * A second operation asked while one runs: the same one again only wakes it; an erasure goes
 * first (the others then find the mind gone and end); any other waits its turn. The domain has
 * already answered what may not run beside another (an import during a move is 503 mind_moving,
 * a move during an import or a second import 409), so what reaches the queue is what it let through.
 */
export class MindOperationsObject extends DurableObject<Env> {
  private readonly serially = serialQueue();
  private readonly deps: Record<"semantic" | "plain", Deps>;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const plain = objectDeps(env, ctx, { semantic: false });
    this.deps = { semantic: { ...plain, semantic: createSemantic(env) }, plain };
  }

  /**
   * Takes the operation (or wakes it, if it is already there) and runs the queue from now on.
   * Answers false when too many wait already: nothing was taken.
   */
  async start(ref: OperationRef): Promise<boolean> {
    const queue = this.queue();
    const key = operationKey(ref);
    if (!queue.some((queued) => operationKey(queued) === key)) {
      if (queue.length >= MAX_QUEUED && ref.kind !== "erase") return false;
      this.ctx.storage.kv.put(QUEUE_KEY, ref.kind === "erase" ? [ref, ...queue] : [...queue, ref]);
    } else {
      // A run under way may already have read its progress (a move just finished, a new one asked for).
      this.ctx.storage.kv.put(`${AGAIN_PREFIX}${key}`, true);
    }
    await this.ctx.storage.setAlarm(Date.now());
    return true;
  }

  /**
   * Runs the operation now, for up to `budgetMs`, if it is the one the mind runs (otherwise it
   * waits its turn); what is left of it (or a failed run) goes on in the background.
   */
  async runFor(ref: OperationRef, budgetMs: number): Promise<void> {
    await this.serially(async () => {
      const [head] = this.queue();
      if (head && operationKey(head) === operationKey(ref)) await this.run(budgetMs, false);
    });
  }

  /** The operations waiting, the running one first. */
  async pending(): Promise<OperationRef[]> {
    return this.queue();
  }

  override async alarm(): Promise<void> {
    await this.serially(() => this.run(ALARM_SLICE_MS, true));
  }

  private queue(): OperationRef[] {
    const kv = this.ctx.storage.kv;
    const legacy = kv.get<string>(LEGACY_MOVE_KEY);
    if (legacy !== undefined) {
      // Stored by this class before it ran every operation: the move goes on from the directory's record.
      const queue = kv.get<OperationRef[]>(QUEUE_KEY) ?? [];
      kv.put(QUEUE_KEY, [...queue, { kind: "move", mindId: legacy } satisfies OperationRef]);
      kv.delete(LEGACY_MOVE_KEY);
    }
    return kv.get<OperationRef[]>(QUEUE_KEY) ?? [];
  }

  /** Drops the operation from the queue (an erasure may have gone ahead of it meanwhile). */
  private drop(ref: OperationRef): void {
    const key = operationKey(ref);
    const queue = this.queue().filter((queued) => operationKey(queued) !== key);
    const kv = this.ctx.storage.kv;
    if (queue.length > 0) kv.put(QUEUE_KEY, queue);
    else kv.delete(QUEUE_KEY);
    if (kv.get<Failures>(FAILURES_KEY)?.key === key) kv.delete(FAILURES_KEY);
  }

  private async run(budgetMs: number, fromAlarm: boolean): Promise<void> {
    const until = Date.now() + budgetMs;
    // Steps are a few D1 calls each: without a rest between them, requests wait for the whole slice.
    const pause = createPacer(REST_PER_WORK);
    for (;;) {
      const [ref] = this.queue();
      if (!ref) {
        await this.ctx.storage.deleteAlarm();
        return;
      }
      if (Date.now() >= until) {
        await this.ctx.storage.setAlarm(Date.now());
        return;
      }
      const operation = operationOf(ref);
      const deps = operation.semantic ? this.deps.semantic : this.deps.plain;
      const cap = fromAlarm ? operation.slicesPerRun.alarm : operation.slicesPerRun.request;
      let slices = 0;
      const more = () => Date.now() < until && slices++ < cap;
      const again = `${AGAIN_PREFIX}${operationKey(ref)}`;
      this.ctx.storage.kv.delete(again);
      try {
        const left = await operation.run(deps, ref, more, pause);
        this.ctx.storage.kv.delete(FAILURES_KEY);
        if (left === false && this.ctx.storage.kv.get<boolean>(again)) continue;
        if (left !== false) {
          // Work due later (a move waiting out the directory cache's bound) wakes the object then, not before.
          await this.ctx.storage.setAlarm(left === true ? Date.now() : left.at);
          return;
        }
        this.drop(ref);
        if (!fromAlarm) {
          // A request ran its own operation: the next one waits for the alarm.
          if (this.queue().length > 0) await this.ctx.storage.setAlarm(Date.now());
          else await this.ctx.storage.deleteAlarm();
          return;
        }
      } catch (error) {
        const failures = this.failed(ref);
        logFailure("mind_operation_failed", error, { kind: ref.kind, mind: ref.mindId, failures });
        await operation.noteFailure?.(deps, ref, error, failures).catch(() => undefined);
        if (givenUp(operation.policy, failures) && operation.giveUp) {
          const left = await operation.giveUp(deps, ref).catch(() => true);
          if (!left) {
            this.drop(ref);
            continue;
          }
        }
        await this.ctx.storage.setAlarm(Date.now() + retryDelay(operation.policy, failures));
        return;
      }
    }
  }

  /** Counts one more failed run of the operation; a count of another operation starts again. */
  private failed(ref: OperationRef): number {
    const key = operationKey(ref);
    const before = this.ctx.storage.kv.get<Failures>(FAILURES_KEY);
    const count = (before?.key === key ? before.count : 0) + 1;
    this.ctx.storage.kv.put(FAILURES_KEY, { key, count } satisfies Failures);
    return count;
  }
}
