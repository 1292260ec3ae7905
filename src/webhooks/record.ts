import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { eventStreams, type WebhookRow, webhookAttempts, webhooks } from "../db/schema";
import type { InShard } from "../deps";
import type { MindEvent } from "../events/types";
import type { Sent } from "../http/outbound";
import { ATTEMPTS_KEPT } from "./subscriptions";

// What a delivery unit did, written in one batch: each webhook's cursor, failures and lease (only
// while the unit still holds it: a unit whose lease ran out changes nothing), the attempts in the
// delivery log, the log cut to ATTEMPTS_KEPT per webhook, and whether due events are left.

/** One attempt: the event, what came of it, how long it took. */
export interface Attempted {
  event: MindEvent;
  sent: Sent;
  durationMs: number;
}

/** One webhook after a unit's attempts. */
export interface WebhookOutcome {
  webhook: WebhookRow;
  attempts: Attempted[];
  /** The sequence of the last event it acknowledged (or skipped as not its type). */
  cursor: number;
  failed: boolean;
  /** Set when this failure ended its retries: it is disabled. */
  disabledReason: string | null;
  /** When a failed attempt is tried again (ms), with the failures in a row and since when. */
  retryAt: number | null;
  failures?: number;
  failingSince?: number;
}

/** Writes the outcomes; answers whether due events are left and how soon the earliest retry is due (ms from now). */
export async function recordDeliveries(deps: Pick<InShard, "shard" | "clock">, mindId: string, outcomes: WebhookOutcome[]): Promise<{ more: boolean; retryInMs: number | null }> {
  const { shard, clock } = deps;
  const now = clock.now();
  const at = now.toISOString();
  const attempts = outcomes.flatMap((o) =>
    o.attempts.map((a) => ({ w: o.webhook.id, e: a.event.id, q: a.event.sequence, t: a.event.type, s: a.sent.status, ok: a.sent.ok ? 1 : 0, x: a.sent.error, d: a.durationMs })),
  );
  const statements: BatchItem<"sqlite">[] = outcomes.map((o) => stateOf(deps, o, at));
  if (attempts.length > 0) {
    statements.push(
      shard.insert(webhookAttempts).select(sql`select null, ${mindId}, j.value->>'w', j.value->>'e', j.value->>'q', j.value->>'t', j.value->>'s',
        j.value->>'ok', j.value->>'x', j.value->>'d', ${at} from json_each(${JSON.stringify(attempts)}) j`),
      shard.delete(webhookAttempts).where(sql`${webhookAttempts.mindId} = ${mindId} and ${webhookAttempts.id} in (
        select id from (select id, row_number() over (partition by webhook_id order by id desc) as n from ${webhookAttempts} where mind_id = ${mindId})
        where n > ${ATTEMPTS_KEPT})`),
    );
  }
  const stream = sql`(select ${eventStreams.last} from ${eventStreams} where ${eventStreams.mindId} = ${mindId})`;
  const due = shard
    .select({ n: sql<number>`count(*)` })
    .from(webhooks)
    .where(sql`${webhooks.mindId} = ${mindId} and ${webhooks.enabled} = 1 and ${webhooks.nextAttemptAt} <= ${at}
      and (${webhooks.leaseUntil} is null or ${webhooks.leaseUntil} <= ${at}) and ${webhooks.cursor} < ${stream}`);
  const results: unknown[] = await shard.batch([...statements, due] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  const left = (results.at(-1) as { n: number }[])[0]?.n ?? 0;
  const retries = outcomes.map((o) => o.retryAt).filter((t): t is number => t !== null);
  return { more: left > 0, retryInMs: retries.length > 0 ? Math.max(0, Math.min(...retries) - now.getTime()) : null };
}

/** The statement that leaves the webhook as the unit's outcome says, its lease released. */
function stateOf({ shard }: Pick<InShard, "shard">, o: WebhookOutcome, at: string) {
  const held = and(eq(webhooks.id, o.webhook.id), eq(webhooks.leaseId, o.webhook.leaseId ?? ""));
  const released = { leaseId: null, leaseUntil: null, cursor: o.cursor };
  if (!o.failed) {
    const recovered = o.webhook.failures > 0 ? { failures: 0, failingSince: null, nextAttemptAt: at, updatedAt: at } : {};
    return shard.update(webhooks).set({ ...released, ...recovered }).where(held);
  }
  const failing = { failures: o.failures ?? o.webhook.failures + 1, failingSince: new Date(o.failingSince ?? Date.parse(at)).toISOString(), updatedAt: at };
  if (o.disabledReason !== null) {
    return shard.update(webhooks).set({ ...released, ...failing, enabled: false, disabledReason: o.disabledReason, disabledAt: at }).where(held);
  }
  return shard.update(webhooks).set({ ...released, ...failing, nextAttemptAt: new Date(o.retryAt ?? Date.parse(at)).toISOString() }).where(held);
}
