import { and, desc, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import { isoNow } from "../clock";
import { eventStreams, events, type WebhookRow, webhookAttempts, webhooks } from "../db/schema";
import { conflict, invalid, notFound } from "../errors";
import { EVENT_TYPES, type EventType } from "../events/types";
import { wakeDelivery } from "../events/wake";
import { refusedUrl } from "../http/outbound";
import { newId } from "../ids";
import type { MindContext } from "../tenancy/mind-context";
import { setMindFields } from "../tenancy/mind-rows";
import { sealSecret } from "./secret-box";
import { encryptionKeyOf, outboundPolicyOf } from "./settings";
import { newSigningSecret } from "./signing";

// A person manages a mind's webhooks: where its events go, which types, the signing secret (shown
// once, kept encrypted), its rotation, and re-enabling one that delivery disabled.

/** Webhooks a mind has at most. */
export const MAX_WEBHOOKS = 10;
/** Attempts of each webhook the delivery log keeps. */
export const ATTEMPTS_KEPT = 100;
/** How long a rotated-out secret still signs, unless the rotation says otherwise (hours), and at most. */
export const DEFAULT_GRACE_HOURS = 24;
export const MAX_GRACE_HOURS = 7 * 24;
/** Longest URL a webhook may have. */
export const URL_MAX_CHARS = 2_000;

/** What managing webhooks reads: the mind, its database, the clock, the settings, and the directory to mark the mind. */
export type WebhookContext = Pick<MindContext, "mind" | "shard" | "clock" | "webhooks" | "directory" | "shards" | "queue">;

/** A webhook as its owner sees it: never its secret. */
export interface Webhook {
  id: string;
  url: string;
  types: EventType[];
  enabled: boolean;
  /** Why delivery disabled it (after a day of failures), or null. */
  disabled_reason: string | null;
  disabled_at: string | null;
  /** Failed attempts in a row at the event it is on, since when, and when the next attempt is due. */
  failures: number;
  failing_since: string | null;
  next_attempt_at: string | null;
  /** Events waiting for it. */
  pending: number;
  /** While a rotated-out secret still signs beside the new one: until when. */
  previous_secret_until: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttempt {
  id: number;
  event_id: string;
  sequence: number;
  type: string;
  /** The receiver's HTTP status; null when none came (refused, timed out, unreachable). */
  status: number | null;
  ok: boolean;
  error: string | null;
  duration_ms: number;
  at: string;
}

// Named with the table: drizzle writes a selected field's columns bare ("mind_id"), which inside
// this subquery would name the event's own column and count every mind's events.
const pendingOf = sql<number>`(select count(*) from ${events} e where e.mind_id = webhooks.mind_id and e.sequence > webhooks.cursor
  and e.type in (select value from json_each(webhooks.types)))`;

const toWebhook = (row: WebhookRow & { pending: number }, now: string): Webhook => ({
  id: row.id,
  url: row.url,
  types: row.types as EventType[],
  enabled: row.enabled,
  disabled_reason: row.disabledReason,
  disabled_at: row.disabledAt,
  failures: row.failures,
  failing_since: row.failingSince,
  next_attempt_at: row.failures > 0 && row.enabled ? row.nextAttemptAt : null,
  pending: row.pending,
  previous_secret_until: row.previousUntil !== null && row.previousUntil > now ? row.previousUntil : null,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

const ofMind = (mindContext: Pick<WebhookContext, "mind">, id: string): SQL => and(eq(webhooks.id, id), eq(webhooks.mindId, mindContext.mind.id))!;

/** The types a webhook asks for, each once, in the order of EVENT_TYPES; every type when none are named. */
export function checkedTypes(types: readonly string[] | undefined): EventType[] {
  if (types === undefined || types.length === 0) return [...EVENT_TYPES];
  const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) throw invalid(`types: unknown event type ${unknown[0]}; the types are ${EVENT_TYPES.join(", ")}`);
  return EVENT_TYPES.filter((t) => types.includes(t));
}

/** Why a webhook may not have this URL (400 naming it), checked as delivery checks it. */
async function checkUrl(mindContext: Pick<WebhookContext, "webhooks" | "clock">, url: string): Promise<void> {
  if (url.length > URL_MAX_CHARS) throw invalid(`url: at most ${URL_MAX_CHARS} characters`);
  const refused = await refusedUrl(url, outboundPolicyOf(mindContext.webhooks, mindContext.clock));
  if (refused !== null) throw invalid(`url: ${refused}`);
}

/**
 * Creates a webhook receiving the mind's events of `types` from now on; answers it with its
 * signing secret, which is shown this once. 409 past MAX_WEBHOOKS.
 */
export async function createWebhook(mindContext: WebhookContext, input: { url: string; types?: readonly string[] }): Promise<Webhook & { secret: string }> {
  const key = encryptionKeyOf(mindContext.webhooks);
  const types = checkedTypes(input.types);
  await checkUrl(mindContext, input.url);
  const { shard, mind } = mindContext;
  const id = newId("whk");
  const secret = newSigningSecret();
  const now = isoNow(mindContext.clock);
  // First: a write that sees the mark wakes delivery; a mark left by a failed create only costs a wake.
  if (!mind.webhooks) await setMindFields(mindContext, mind, { webhooks: true });
  const count = sql`(select count(*) from ${webhooks} where ${webhooks.mindId} = ${mind.id})`;
  const [, created] = await shard.batch([
    shard.insert(eventStreams).values({ mindId: mind.id, last: 0 }).onConflictDoNothing(),
    shard.insert(webhooks).select(sql`select ${id}, ${mind.id}, ${input.url}, ${JSON.stringify(types)}, ${await sealSecret(key, id, secret)},
      null, null, 1, null, null, s.last, 0, null, ${now}, null, null, ${now}, ${now}
      from ${eventStreams} s where s.mind_id = ${mind.id} and ${count} < ${MAX_WEBHOOKS}`).returning(),
  ]);
  if (!created[0]) throw conflict(`a mind has at most ${MAX_WEBHOOKS} webhooks: delete one first`);
  return { ...toWebhook({ ...created[0], pending: 0 }, now), secret };
}

/** The mind's webhooks, oldest first. */
export async function listWebhooks(mindContext: Pick<WebhookContext, "mind" | "shard" | "clock">): Promise<Webhook[]> {
  const rows = await mindContext.shard
    .select({ ...getTableColumns(webhooks), pending: pendingOf })
    .from(webhooks)
    .where(eq(webhooks.mindId, mindContext.mind.id))
    .orderBy(webhooks.createdAt, webhooks.id);
  return rows.map((row) => toWebhook(row, isoNow(mindContext.clock)));
}

/** One of the mind's webhooks; another mind's is not found. */
export async function getWebhook(mindContext: Pick<WebhookContext, "mind" | "shard" | "clock">, id: string): Promise<Webhook> {
  const row = await mindContext.shard.select({ ...getTableColumns(webhooks), pending: pendingOf }).from(webhooks).where(ofMind(mindContext, id)).get();
  if (!row) throw notFound("webhook");
  return toWebhook(row, isoNow(mindContext.clock));
}

/** Deletes a webhook with its delivery log; the mind's last one takes its mark, so its writes wake nothing. */
export async function deleteWebhook(mindContext: WebhookContext, id: string): Promise<void> {
  const { shard, mind } = mindContext;
  const [gone, left] = await shard.batch([
    shard.delete(webhooks).where(ofMind(mindContext, id)).returning({ id: webhooks.id }),
    shard.select({ n: sql<number>`count(*)` }).from(webhooks).where(eq(webhooks.mindId, mind.id)),
  ]);
  if (gone.length === 0) throw notFound("webhook");
  if ((left[0]?.n ?? 0) === 0) await setMindFields(mindContext, mind, { webhooks: false });
}

/**
 * A new signing secret, shown this once; the one it replaces still signs beside it for
 * `graceHours` (receivers accept either), then stops.
 */
export async function rotateSecret(mindContext: WebhookContext, id: string, graceHours = DEFAULT_GRACE_HOURS): Promise<Webhook & { secret: string }> {
  const key = encryptionKeyOf(mindContext.webhooks);
  const now = mindContext.clock.now();
  const secret = newSigningSecret();
  const until = new Date(now.getTime() + graceHours * 3_600_000).toISOString();
  const [row] = await mindContext.shard
    .update(webhooks)
    .set({ previousSecret: sql`${webhooks.secret}`, previousUntil: until, secret: await sealSecret(key, id, secret), updatedAt: now.toISOString() })
    .where(ofMind(mindContext, id))
    .returning();
  if (!row) throw notFound("webhook");
  return { ...(await getWebhook(mindContext, id)), secret };
}

/** Turns a webhook delivery disabled back on: it starts again at the event it stopped at. */
export async function enableWebhook(mindContext: WebhookContext, id: string): Promise<Webhook> {
  const now = isoNow(mindContext.clock);
  const [row] = await mindContext.shard
    .update(webhooks)
    .set({ enabled: true, disabledReason: null, disabledAt: null, failures: 0, failingSince: null, nextAttemptAt: now, leaseId: null, leaseUntil: null, updatedAt: now })
    .where(ofMind(mindContext, id))
    .returning({ id: webhooks.id });
  if (!row) throw notFound("webhook");
  await wakeDelivery(mindContext.queue, mindContext.mind);
  return getWebhook(mindContext, id);
}

/** The webhook's delivery log: its last ATTEMPTS_KEPT attempts, newest first. */
export async function listAttempts(mindContext: Pick<WebhookContext, "mind" | "shard">, id: string, limit = ATTEMPTS_KEPT): Promise<WebhookAttempt[]> {
  const [owned, rows] = await mindContext.shard.batch([
    mindContext.shard.select({ id: webhooks.id }).from(webhooks).where(ofMind(mindContext, id)),
    mindContext.shard
      .select()
      .from(webhookAttempts)
      .where(and(eq(webhookAttempts.webhookId, id), eq(webhookAttempts.mindId, mindContext.mind.id)))
      .orderBy(desc(webhookAttempts.id))
      .limit(limit),
  ]);
  if (owned.length === 0) throw notFound("webhook");
  return rows.map((r) => ({
    id: r.id,
    event_id: r.eventId,
    sequence: r.sequence,
    type: r.type,
    status: r.status,
    ok: r.ok,
    error: r.error,
    duration_ms: r.durationMs,
    at: r.at,
  }));
}
