import { AppError, loggable } from "../errors";
import { rateLimitedIn } from "../llm/limited-model";
import { retryDelay, type RetryPolicy } from "../retry";
import { holdMark, noteFailure, QUEUED_TTL_MS, releaseMark } from "./marks";
import { parseMessage, sendAll, type Unit, type WorkMessage } from "./units";
import type { Deps } from "../deps";
import type { UnitHandlers, WorkOutcome } from "./job";

/** Backoff of a failed unit: 30 s, 1, 2, 4, 8 min, then every 15 min, each ±20 % so retries spread. */
export const UNIT_RETRY: RetryPolicy = { firstMs: 30_000, maxMs: 15 * 60_000, jitter: 0.2 };

/** The wait, in whole seconds, after a unit's `attempts`-th failed delivery. */
export function backoffSeconds(attempts: number, random: () => number = Math.random): number {
  return Math.round(retryDelay(UNIT_RETRY, attempts, random) / 1000);
}

/** Works on one unit; a thrown failure becomes a retry with its code (never its text). */
export async function workOn(deps: Deps, handlers: UnitHandlers, unit: Unit, shard: string): Promise<WorkOutcome> {
  try {
    const handle = handlers[unit.kind] as (deps: Deps, unit: Unit, shard: string) => Promise<WorkOutcome>;
    return await handle(deps, unit, shard);
  } catch (error) {
    const limited = rateLimitedIn(error);
    if (!limited) console.error(`unit ${unit.kind} failed`, loggable(error));
    const code = error instanceof AppError ? error.code : "internal";
    return { status: "retry", code, ...(limited && { retryAfterSeconds: limited.retryAfterSeconds }) };
  }
}

/** What the consumer does with a delivered message after its unit's outcome. */
export type Settled = { ack: true; outcome: WorkOutcome | null } | { ack: false; delaySeconds: number; outcome: WorkOutcome };

/**
 * Handles one delivered message: works on its unit with its kind's handler, then keeps the unit's mark in step (released
 * when done, held through a wait, the failure's code noted) and says whether to ack or retry.
 * A body that names no unit is acknowledged and dropped: it is not ours to work on.
 */
export async function settleMessage(deps: Deps, handlers: UnitHandlers, body: unknown, attempts: number): Promise<Settled> {
  const parsed = parseMessage(body);
  if (!parsed || !deps.shards.names.includes(parsed.message.shard)) {
    console.error("dropped a work message that names no unit of this deployment");
    return { ack: true, outcome: null };
  }
  const { message, unit } = parsed;
  const outcome = await workOn(deps, handlers, unit, message.shard);
  const db = deps.shards.db(message.shard);
  // The mark is bookkeeping: failing to keep it only delays or repeats a unit, never loses one.
  const keep = (work: Promise<void>) => work.catch((error) => console.error("could not keep a unit's mark", loggable(error)));
  switch (outcome.status) {
    case "done":
      if (outcome.more) {
        // The mark lives as long as the chain of messages, so no cron run sends a second copy meanwhile.
        await keep(holdMark(db, message.unit, message.run, new Date(deps.clock.now().getTime() + QUEUED_TTL_MS)));
        await sendAgain(deps, message);
      }
      else await keep(releaseMark(db, message.unit, message.run));
      return { ack: true, outcome };
    case "wait":
      await keep(holdMark(db, message.unit, message.run, outcome.until));
      return { ack: true, outcome };
    case "retry":
      await keep(noteFailure(db, message.unit, message.run, outcome.code, attempts));
      return { ack: false, delaySeconds: outcome.retryAfterSeconds ?? backoffSeconds(attempts), outcome };
  }
}

/** The unit goes round again under the same mark; if sending fails, the mark's expiry brings it back. */
async function sendAgain(deps: Deps, message: WorkMessage): Promise<void> {
  try {
    await sendAll(deps.queue, [message]);
  } catch (error) {
    console.error("could not send a unit again", loggable(error));
  }
}

/** The queue() consumer of the work queue: every message of the batch at once, each acked or retried alone. */
export async function consumeWork(deps: Deps, handlers: UnitHandlers, batch: MessageBatch<unknown>): Promise<void> {
  await Promise.all(
    batch.messages.map(async (msg) => {
      const settled = await settleMessage(deps, handlers, msg.body, msg.attempts);
      if (settled.ack) msg.ack();
      else msg.retry({ delaySeconds: settled.delaySeconds });
    }),
  );
}
