import { loggable } from "../errors";
import { recordDeadLetter } from "./dead-letters";
import { parseMessage } from "./units";
import type { Deps } from "../deps";

/** The dead-letter queue's consumer: records each message (kind, mind, namespace, error code) for GET /jobs. */
export async function consumeDeadLetters(deps: Deps, batch: MessageBatch<unknown>): Promise<void> {
  for (const msg of batch.messages) {
    const parsed = parseMessage(msg.body);
    if (!parsed || !deps.shards.names.includes(parsed.message.shard)) {
      console.error("dropped a dead letter that names no unit of this deployment");
      msg.ack();
      continue;
    }
    try {
      await recordDeadLetter(deps, parsed.message, msg.attempts);
      msg.ack();
    } catch (error) {
      console.error("could not record a dead letter", loggable(error));
      msg.retry();
    }
  }
}
