import type { Deps } from "../deps";
import { appErrorOf, rateLimitedIn } from "../errors";
import { createD1Meter } from "../observe/d1-meter";
import { type LogFields, logEvent, logFailure, withLogFields } from "../observe/log";
import { type RetryPolicy, retryDelay } from "../retry";
import type { UnitHandlers, UnitOutcome } from "./handlers";
import { holdMark, noteFailure, QUEUED_TTL_MS, releaseMark } from "./marks";
import { parseMessage, sendAll, type Unit, unitSubject, type WorkMessage } from "./units";

/** Backoff of a failed unit: 30 s, 1, 2, 4, 8 min, then every 15 min, each ±20 % so retries spread. */
export const UNIT_RETRY: RetryPolicy = { firstMs: 30_000, maxMs: 15 * 60_000, jitter: 0.2 };

/** The wait, in whole seconds, after a unit's `attempts`-th failed delivery. */
export function backoffSeconds(attempts: number, random: () => number = Math.random): number {
  return Math.round(retryDelay(UNIT_RETRY, attempts, random) / 1000);
}

/** Handles one unit with its kind's handler; a thrown failure becomes a retry with its code (never its text). `log`: the fields naming the message in log lines. */
export async function handleUnit(deps: Deps, handlers: UnitHandlers, unit: Unit, shard: string, log: LogFields = {}): Promise<UnitOutcome> {
  try {
    const handle = handlers[unit.kind] as (deps: Deps, unit: Unit, shard: string) => Promise<UnitOutcome>;
    return await handle(deps, unit, shard);
  } catch (error) {
    const limited = rateLimitedIn(error);
    if (!limited) logFailure("unit_failed", error, log);
    const code = appErrorOf(error)?.code ?? "internal";
    return { status: "retry", code, ...(limited && { retryAfterSeconds: limited.retryAfterSeconds }) };
  }
}

/** What the consumer does with a delivered message after its unit's outcome; `log`: the fields its log line names the unit by. */
export type Settled = ({ ack: true; outcome: UnitOutcome | null } | { ack: false; delaySeconds: number; outcome: UnitOutcome }) & { log: LogFields };

/**
 * Handles one delivered message: works on its unit with its kind's handler, then keeps the unit's mark in step (released
 * when done, held through a wait, the failure's code noted) and says whether to ack or retry.
 * A body that names no unit is acknowledged and dropped: it is not ours to work on.
 */
export async function settleMessage(deps: Deps, handlers: UnitHandlers, body: unknown, attempts: number, ids: LogFields = {}): Promise<Settled> {
  const parsed = parseMessage(body);
  if (!parsed || !deps.shards.names.includes(parsed.message.shard)) {
    logEvent("error", "unit_dropped", { ...ids, reason: "the message names no unit of this deployment" });
    return { ack: true, outcome: null, log: {} };
  }
  const { message, unit } = parsed;
  const log: LogFields = { ...ids, kind: unit.kind, mind: unitSubject(unit).mindId, shard: message.shard };
  // What the unit's writes defer (waking their events' delivery) ends with its message, not after it.
  const deferred: Promise<unknown>[] = [];
  const withDefer = deps.defer ? deps : { ...deps, defer: (work: Promise<unknown>) => void deferred.push(work) };
  const outcome = await handleUnit(withDefer, handlers, unit, message.shard, log);
  await Promise.allSettled(deferred);
  const db = deps.shards.db(message.shard);
  // The mark is bookkeeping: failing to keep it only delays or repeats a unit, never loses one.
  const keep = (work: Promise<void>) => work.catch((error) => logFailure("unit_mark_not_kept", error, log));
  switch (outcome.status) {
    case "done":
      if (outcome.more) {
        // The mark lives as long as the chain of messages, so no cron run sends a second copy meanwhile.
        await keep(holdMark(db, message.unit, message.run, new Date(deps.clock.now().getTime() + QUEUED_TTL_MS)));
        await sendAgain(deps, message, log);
      }
      else await keep(releaseMark(db, message.unit, message.run));
      return { ack: true, outcome, log };
    case "wait":
      await keep(holdMark(db, message.unit, message.run, outcome.until));
      return { ack: true, outcome, log };
    case "retry":
      await keep(noteFailure(db, message.unit, message.run, outcome.code, attempts));
      return { ack: false, delaySeconds: outcome.retryAfterSeconds ?? backoffSeconds(attempts), outcome, log };
  }
}

/** The unit goes round again under the same mark; if sending fails, the mark's expiry brings it back. */
async function sendAgain(deps: Deps, message: WorkMessage, log: LogFields): Promise<void> {
  try {
    await sendAll(deps.queue, [message]);
  } catch (error) {
    logFailure("unit_not_sent_again", error, log);
  }
}

/** Deps for one message, their D1 bindings seen through `wrap` (the message's meter). */
export type DepsWith = (wrap: (d1: D1Database) => D1Database) => Deps;

/**
 * The queue() consumer of the work queue: every message of the batch at once, each acked or
 * retried alone, each told in one log line with its outcome, how long it waited and its D1 cost.
 */
export async function consumeWork(depsWith: DepsWith, handlers: UnitHandlers, batch: MessageBatch<unknown>): Promise<void> {
  await Promise.all(
    // Each message is its own work: its id is the request id of every line written for it.
    batch.messages.map((msg) => withLogFields({ request_id: msg.id }, async () => {
      const meter = createD1Meter();
      const startedAt = Date.now();
      const ids = { request_id: msg.id, queue: batch.queue, attempts: msg.attempts };
      const settled = await settleMessage(depsWith(meter.wrap), handlers, msg.body, msg.attempts, ids);
      if (settled.ack) msg.ack();
      else msg.retry({ delaySeconds: settled.delaySeconds });
      const outcome = settled.outcome;
      logEvent(outcome?.status === "retry" ? "warn" : "info", "queue_message", {
        ...ids,
        ...settled.log,
        status: outcome?.status ?? "dropped",
        error_code: outcome?.status === "retry" ? outcome.code : undefined,
        lag_ms: startedAt - msg.timestamp.getTime(),
        duration_ms: Date.now() - startedAt,
        ...meter.totals(),
      });
    })),
  );
}
