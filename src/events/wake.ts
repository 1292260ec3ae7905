import type { WorkQueue } from "../deps";
import { logFailure } from "../observe/log";
import { sendAll, unitText, type WorkMessage } from "../queue/units";

// A mind's events are delivered by a queue unit (src/webhooks/deliver.ts). A write that wrote
// events wakes it after the answer; a wake that is lost (or a write whose isolate did not yet know
// the mind has webhooks) leaves its events to the next write's wake or the hourly sweep.

/** The run a write's wake goes under: no producer run marked it. */
const WRITE_RUN = "write";

/** The message that delivers the mind's waiting events, on the database holding them. */
export const deliveryMessage = (mindId: string, shard: string): WorkMessage => ({ unit: unitText({ kind: "deliver", mindId }), shard, run: WRITE_RUN });

/** Sends the mind's delivery message (after `delaySeconds`); a failed send is logged, not thrown. */
export async function wakeDelivery(queue: WorkQueue, mind: { id: string; shard: string }, delaySeconds?: number): Promise<void> {
  try {
    await sendAll(queue, [deliveryMessage(mind.id, mind.shard)], delaySeconds);
  } catch (error) {
    logFailure("webhook_wake_failed", error, { mind: mind.id });
  }
}
