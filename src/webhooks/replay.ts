import { and, eq } from "drizzle-orm";
import { events, webhooks } from "../db/schema";
import { notFound } from "../errors";
import { toMindEvent } from "../events/types";
import { recordDeliveries } from "./record";
import { sendEvent, targetOf } from "./send";
import { listAttempts, type WebhookAttempt, type WebhookContext } from "./subscriptions";

/**
 * Sends one of the mind's events to one of its webhooks again, now, whatever its cursor (a
 * receiver that lost it): one attempt, in the delivery log, with the event's own id as
 * `webhook-id`. Events are kept EVENTS_KEPT_DAYS (src/events/retention.ts); an older one is not found.
 */
export async function replayEvent(mindContext: WebhookContext, webhookId: string, eventId: string): Promise<WebhookAttempt> {
  const { shard, mind } = mindContext;
  const [hooks, found] = await shard.batch([
    shard.select().from(webhooks).where(and(eq(webhooks.id, webhookId), eq(webhooks.mindId, mind.id))),
    shard.select().from(events).where(and(eq(events.id, eventId), eq(events.mindId, mind.id))),
  ]);
  const webhook = hooks[0];
  if (!webhook) throw notFound("webhook");
  if (!found[0]) throw notFound("event");
  const event = toMindEvent(found[0]);
  const started = Date.now();
  const sent = await sendEvent(mindContext, await targetOf(mindContext, webhook), event);
  const attempt = { event, sent, durationMs: Date.now() - started };
  // Recorded as a delivery that holds no lease: the webhook's cursor and failures stay as they are.
  await recordDeliveries(mindContext, mind.id, [
    { webhook: { ...webhook, leaseId: null }, attempts: [attempt], cursor: webhook.cursor, failed: false, disabledReason: null, retryAt: null },
  ]);
  const [latest] = await listAttempts(mindContext, webhookId, 1);
  return latest!;
}
