import { sql } from "drizzle-orm";
import { type EventRow, eventStreams, events, minds, type WebhookRow, webhooks } from "../db/schema";
import type { InShard } from "../deps";
import { toMindEvent } from "../events/types";
import { wakeDelivery } from "../events/wake";
import { newId } from "../ids";
import { retryDelay } from "../retry";
import { type Attempted, recordDeliveries, type WebhookOutcome } from "./record";
import { sendEvent, targetOf } from "./send";

// Delivery of a mind's events, one queue unit at a time (`deliver <mind>`, src/jobs/webhooks.ts):
// the unit leases every webhook of the mind that is due (enabled, not waiting out a backoff, not
// leased by another unit, with events after its cursor) in one statement, reads the next events
// each wants, and sends them to each webhook in order, the webhooks side by side, so a slow or
// failing receiver holds back only itself. A webhook's cursor moves past what it acknowledged, in
// one batch with the delivery log and the lease's release: an event is sent again only when its
// acknowledgement was not recorded (at least once, in order per mind). A failed attempt waits
// (WEBHOOK_RETRY) and a delayed message comes back for it; after RETRY_WINDOW_MS of failures the
// webhook is disabled with the reason, until a person turns it on again.

/**
 * Attempts one unit makes at most, over all its webhooks (a fair share each, at least one): with
 * a lookup or two of a name per webhook and a few queue sends, at most ~40 subrequests a message,
 * so the 25 messages of a queue batch stay within an invocation's 1,000.
 */
export const ATTEMPTS_PER_UNIT = 16;
/** No attempt starts after this long into a unit, so one unit holds its leases for a bounded time. */
export const DELIVERY_SLICE_MS = 30_000;
/** A webhook is leased for this long: the slice, an attempt's timeout and its lookups, with room to spare. */
const LEASE_MS = 2 * 60_000;

/** What one unit did, and whether due events are left. */
export interface DeliveryCounts {
  webhooks: number;
  delivered: number;
  failed: number;
  disabled: number;
  more: boolean;
}

/** Delivers what is due of the mind's events on this database (see above); answers what it did. */
export async function deliverDue(deps: InShard, mind: { id: string; shard: string }): Promise<DeliveryCounts> {
  const startedAt = Date.now();
  const { claimed, due, last } = await claimDue(deps, mind.id);
  if (claimed.length === 0) return { webhooks: 0, delivered: 0, failed: 0, disabled: 0, more: false };
  const share = Math.max(1, Math.floor(ATTEMPTS_PER_UNIT / claimed.length));
  const outcomes = await Promise.all(
    claimed.map((webhook) => deliverTo(deps, webhook, due.filter((e) => e.webhookId === webhook.id).slice(0, share), { share, last, startedAt })),
  );
  const { more, retryInMs } = await recordDeliveries(deps, mind.id, outcomes);
  // The earliest retry this unit scheduled comes back as a delayed message (a lost one: the hourly sweep).
  if (retryInMs !== null) await wakeDelivery(deps.queue, mind, Math.max(1, Math.ceil(retryInMs / 1000)));
  return {
    webhooks: claimed.length,
    delivered: outcomes.reduce((n, o) => n + o.attempts.filter((a) => a.sent.ok).length, 0),
    failed: outcomes.filter((o) => o.failed).length,
    disabled: outcomes.filter((o) => o.disabledReason !== null).length,
    more,
  };
}

/**
 * Leases the due webhooks of the mind and reads, in the same batch, the next events of the types
 * each wants (a mind being erased: its farewell, mind.erased, alone), and the stream's last.
 */
async function claimDue(deps: InShard, mindId: string) {
  const { shard, clock } = deps;
  const now = clock.now();
  const leaseId = newId("lease");
  const writes = sql`(select ${minds.writes} from ${minds} where ${minds.id} = ${mindId})`;
  const stream = sql`(select ${eventStreams.last} from ${eventStreams} where ${eventStreams.mindId} = ${mindId})`;
  const claim = shard
    .update(webhooks)
    .set({ leaseId, leaseUntil: new Date(now.getTime() + LEASE_MS).toISOString() })
    .where(sql`${webhooks.mindId} = ${mindId} and ${webhooks.enabled} = 1 and ${webhooks.nextAttemptAt} <= ${now.toISOString()}
      and (${webhooks.leaseUntil} is null or ${webhooks.leaseUntil} <= ${now.toISOString()})
      and ${webhooks.cursor} < ${stream} and ${writes} in ('open', 'erasing')`)
    .returning();
  const perWebhook = sql`max(1, ${ATTEMPTS_PER_UNIT} / (select count(*) from ${webhooks} where ${webhooks.leaseId} = ${leaseId}))`;
  const ranked = sql`(select e.*, w.id as webhook_id, row_number() over (partition by w.id order by e.sequence) as n
      from ${webhooks} w join ${events} e on e.mind_id = w.mind_id and e.sequence > w.cursor
      where w.lease_id = ${leaseId} and e.type in (select value from json_each(w.types))
        and (${writes} = 'open' or e.type = 'mind.erased')) x`;
  const next = shard
    .select({
      id: sql<string>`x.id`,
      mindId: sql<string>`x.mind_id`,
      sequence: sql<number>`x.sequence`,
      type: sql<string>`x.type`,
      agent: sql<string | null>`x.agent`,
      occurredAt: sql<string>`x.occurred_at`,
      data: sql<string>`x.data`,
      webhookId: sql<string>`x.webhook_id`,
    })
    .from(ranked)
    .where(sql`x.n <= ${perWebhook}`)
    .orderBy(sql`x.webhook_id`, sql`x.sequence`);
  const [claimed, due, streams] = await shard.batch([claim, next, shard.select({ last: eventStreams.last }).from(eventStreams).where(sql`${eventStreams.mindId} = ${mindId}`)]);
  return { claimed, due, last: streams[0]?.last ?? 0 };
}

/** Sends one webhook its events in order until one fails or the slice ends: its outcome, for the record. */
async function deliverTo(
  deps: InShard,
  webhook: WebhookRow,
  due: (EventRow & { webhookId: string })[],
  bounds: { share: number; last: number; startedAt: number },
): Promise<WebhookOutcome> {
  const attempts: Attempted[] = [];
  let cursor = webhook.cursor;
  const target = due.length > 0 ? await targetOf(deps, webhook) : null;
  for (const row of due) {
    if (Date.now() - bounds.startedAt > DELIVERY_SLICE_MS) break;
    const event = toMindEvent(row);
    const started = Date.now();
    const sent = await sendEvent(deps, target!, event);
    attempts.push({ event, sent, durationMs: Date.now() - started });
    if (!sent.ok) return failedOutcome(deps, webhook, attempts, cursor, sent.error ?? "failed");
    cursor = event.sequence;
  }
  // Every event it wants up to the stream's last was read and sent: the events between are not its types.
  const all = due.length < bounds.share && attempts.length === due.length;
  return { webhook, attempts, cursor: all ? Math.max(cursor, bounds.last) : cursor, failed: false, disabledReason: null, retryAt: null };
}

/** Failed attempts in a row are retried for this long from the first, then the webhook is disabled. */
export const RETRY_WINDOW_MS = 24 * 60 * 60_000;
/** The wait after each failed attempt: 5 s doubling to at most 8 h, ±20 %; the last one lands at the window's end. */
export const WEBHOOK_RETRY = { firstMs: 5_000, maxMs: 8 * 60 * 60_000, jitter: 0.2 } as const;

function failedOutcome(deps: InShard, webhook: WebhookRow, attempts: Attempted[], cursor: number, error: string): WebhookOutcome {
  const now = deps.clock.now().getTime();
  const since = webhook.failingSince ? Date.parse(webhook.failingSince) : now;
  const failures = webhook.failures + 1;
  if (now - since >= RETRY_WINDOW_MS) {
    const reason = `failed for ${Math.round((now - since) / 3_600_000)} hours, ${failures} attempts in a row; the last: ${error}`.slice(0, 500);
    return { webhook, attempts, cursor, failed: true, disabledReason: reason, retryAt: null, failures, failingSince: since };
  }
  const retryAt = Math.min(now + retryDelay(WEBHOOK_RETRY, failures), since + RETRY_WINDOW_MS);
  return { webhook, attempts, cursor, failed: true, disabledReason: null, retryAt, failures, failingSince: since };
}
