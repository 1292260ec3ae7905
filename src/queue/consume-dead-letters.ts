import type { Deps } from "../deps";
import { logEvent, logFailure, withLogFields } from "../observe/log";
import { recordDeadLetter } from "./dead-letters";
import { parseMessage, unitSubject } from "./units";

/** The dead-letter queue's consumer: records each message (kind, mind, namespace, error code) for GET /jobs, and logs it. */
export async function consumeDeadLetters(deps: Deps, batch: MessageBatch<unknown>): Promise<void> {
  for (const msg of batch.messages) await withLogFields({ request_id: msg.id }, () => recordOne(deps, msg, batch.queue));
}

/** One dead letter recorded and acked, or retried when it could not be recorded. */
async function recordOne(deps: Deps, msg: Message<unknown>, queue: string): Promise<void> {
  const ids = { request_id: msg.id, queue, attempts: msg.attempts };
  const parsed = parseMessage(msg.body);
  if (!parsed || !deps.shards.names.includes(parsed.message.shard)) {
    logEvent("error", "unit_dropped", { ...ids, reason: "the dead letter names no unit of this deployment" });
    msg.ack();
    return;
  }
  const log = { ...ids, kind: parsed.unit.kind, mind: unitSubject(parsed.unit).mindId, shard: parsed.message.shard };
  try {
    const errorCode = await recordDeadLetter(deps, parsed.message, msg.attempts);
    logEvent("error", "dead_letter", { ...log, error_code: errorCode });
    msg.ack();
  } catch (error) {
    logFailure("dead_letter_not_recorded", error, log);
    msg.retry();
  }
}
