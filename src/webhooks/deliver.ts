import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { type EventRow, eventStreams, events, minds, type WebhookRow, webhooks } from "../db/schema";
import type { InShard } from "../deps";
import { toMindEvent } from "../events/types";
import { wakeDelivery } from "../events/wake";
import { newId } from "../ids";
import { retryDelay } from "../retry";
import { type Attempted, recordDeliveries, type WebhookOutcome } from "./record";
import { sendEvent, type Target, targetOf } from "./send";
import { outboundPolicyOf } from "./settings";

// Delivery of a mind's events, one queue unit at a time (`deliver <mind>`, src/jobs/webhooks.ts):
// the unit leases every webhook of the mind that is due (enabled, not waiting out a backoff, not
// leased by another unit, with events after its cursor) in one statement, reads the next events
// each wants (as many as it may send), and sends them to each webhook in order, the webhooks
// side by side, so a slow or failing receiver holds back only itself. A webhook's cursor moves
// past what it acknowledged, in one batch with the delivery log and the lease's release: an event
// is sent again only when its acknowledgement was not recorded (at least once, in order per mind).
// A failed attempt waits (WEBHOOK_RETRY) and a delayed message comes back for it; after
// RETRY_WINDOW_MS of failures the webhook is disabled with the reason, until a person turns it on.

/**
 * Subrequests one unit makes at most for its webhooks: the lookups of their names (two each, when
 * not known yet) and then its attempts, a fair share each (at least one). With the two queue sends
 * a unit may make, a queue batch of 25 messages stays within an invocation's 1,000.
 */
export const SUBREQUESTS_PER_UNIT = 36;
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
  const { claimed, read, last, readMax } = await claimDue(deps, mind.id);
  if (claimed.length === 0) return { webhooks: 0, delivered: 0, failed: 0, disabled: 0, more: false };
  // Where each goes, checked now: its name's lookups come out of the unit's subrequests first.
  let lookups = 0;
  const policy = outboundPolicyOf(deps.webhooks, deps.clock, () => lookups++);
  const targets = await Promise.all(claimed.map((webhook, i) => (read[i]!.length > 0 ? targetOf(deps, webhook, policy) : null)));
  const bounds = { share: shareOf(SUBREQUESTS_PER_UNIT - lookups, claimed.length), readMax, last, startedAt };
  const outcomes = await Promise.all(claimed.map((webhook, i) => deliverTo(deps, webhook, targets[i] ?? null, read[i]!, bounds)));
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
 * Leases the due webhooks of the mind (one statement), then reads in one batch the stream's last
 * and each one's next events of the types it wants (a mind being erased: its farewell, mind.erased,
 * alone), at most `readMax` each, by the stream's index: a unit reads no more than it may send.
 */
async function claimDue(deps: InShard, mindId: string) {
  const { shard, clock } = deps;
  const now = clock.now();
  const stream = sql`(select ${eventStreams.last} from ${eventStreams} where ${eventStreams.mindId} = ${mindId})`;
  const claim = shard
    .update(webhooks)
    .set({ leaseId: newId("lease"), leaseUntil: new Date(now.getTime() + LEASE_MS).toISOString() })
    .where(sql`${webhooks.mindId} = ${mindId} and ${webhooks.enabled} = 1 and ${webhooks.nextAttemptAt} <= ${now.toISOString()}
      and (${webhooks.leaseUntil} is null or ${webhooks.leaseUntil} <= ${now.toISOString()}) and ${webhooks.cursor} < ${stream}
      and (select ${minds.writes} from ${minds} where ${minds.id} = ${mindId}) in ('open', 'erasing')`)
    .returning();
  const [claimed, mind] = await shard.batch([claim, shard.select({ writes: minds.writes }).from(minds).where(eq(minds.id, mindId))]);
  if (claimed.length === 0) return { claimed, read: [], last: 0, readMax: 0 };
  const erasing = mind[0]?.writes === "erasing";
  const readMax = shareOf(SUBREQUESTS_PER_UNIT, claimed.length);
  const next = (webhook: WebhookRow) =>
    shard
      .select()
      .from(events)
      .where(and(eq(events.mindId, mindId), gt(events.sequence, webhook.cursor), erasing ? eq(events.type, "mind.erased") : inArray(events.type, webhook.types)))
      .orderBy(asc(events.sequence))
      .limit(readMax);
  const [streams, ...read] = await shard.batch([shard.select({ last: eventStreams.last }).from(eventStreams).where(eq(eventStreams.mindId, mindId)), ...claimed.map(next)]);
  return { claimed, read, last: streams[0]?.last ?? 0, readMax };
}

/** Each webhook's share of `budget` subrequests among `count`: at least one. */
const shareOf = (budget: number, count: number) => Math.max(1, Math.floor(budget / count));

/**
 * Sends one webhook its events in order (of those read, at most its share) until one fails or the
 * slice ends: its outcome, for the record.
 */
async function deliverTo(
  deps: InShard,
  webhook: WebhookRow,
  target: Target | null,
  read: EventRow[],
  bounds: { share: number; readMax: number; last: number; startedAt: number },
): Promise<WebhookOutcome> {
  const attempts: Attempted[] = [];
  let cursor = webhook.cursor;
  const sending = read.slice(0, bounds.share);
  for (const row of sending) {
    if (!target || Date.now() - bounds.startedAt > DELIVERY_SLICE_MS) break;
    const event = toMindEvent(row);
    const started = Date.now();
    const sent = await sendEvent(deps, target, event);
    attempts.push({ event, sent, durationMs: Date.now() - started });
    if (!sent.ok) return failedOutcome(deps, webhook, attempts, cursor, sent.error ?? "failed");
    cursor = event.sequence;
  }
  // Every event it wants up to the stream's last was read and sent: the events between are not its types.
  const all = read.length < bounds.readMax && attempts.length === read.length;
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
