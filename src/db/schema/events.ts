import { integer, sqliteTable, text, unique } from "drizzle-orm/sqlite-core";

// A shard's tables of outbound events (migrations/0026_webhooks.sql): each mind's stream of
// events, written in the batch of the change they describe, its webhooks, and their delivery log.
// Part of the mind's data: a move copies them, an erasure erases them.

/** Present while the mind has a webhook: `last` is the sequence of its latest event. */
export const eventStreams = sqliteTable("event_streams", {
  mindId: text("mind_id").primaryKey(),
  last: integer("last").notNull(),
});

/** One event per change, numbered per mind in the change's own batch; `data` is what changed. */
export const events = sqliteTable(
  "events",
  {
    id: text("id").primaryKey(),
    mindId: text("mind_id").notNull(),
    sequence: integer("sequence").notNull(),
    type: text("type").notNull(),
    agent: text("agent"),
    occurredAt: text("occurred_at").notNull(),
    data: text("data").notNull(),
  },
  (t) => [unique().on(t.mindId, t.sequence)],
);

/** Where a mind's events go, which types, with the signing secret encrypted, and how far delivery has come. */
export const webhooks = sqliteTable("webhooks", {
  id: text("id").primaryKey(),
  mindId: text("mind_id").notNull(),
  url: text("url").notNull(),
  types: text("types", { mode: "json" }).$type<string[]>().notNull(),
  secret: text("secret").notNull(),
  previousSecret: text("previous_secret"),
  previousUntil: text("previous_until"),
  enabled: integer("enabled", { mode: "boolean" }).notNull(),
  disabledReason: text("disabled_reason"),
  disabledAt: text("disabled_at"),
  cursor: integer("cursor").notNull(),
  failures: integer("failures").notNull(),
  failingSince: text("failing_since"),
  nextAttemptAt: text("next_attempt_at").notNull(),
  leaseId: text("lease_id"),
  leaseUntil: text("lease_until"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

/** The delivery log: one row per attempt, the last 100 of each webhook kept. */
export const webhookAttempts = sqliteTable("webhook_attempts", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  mindId: text("mind_id").notNull(),
  webhookId: text("webhook_id").notNull(),
  eventId: text("event_id").notNull(),
  sequence: integer("sequence").notNull(),
  type: text("type").notNull(),
  status: integer("status"),
  ok: integer("ok", { mode: "boolean" }).notNull(),
  error: text("error"),
  durationMs: integer("duration_ms").notNull(),
  at: text("at").notNull(),
});

export type WebhookRow = typeof webhooks.$inferSelect;
export type EventRow = typeof events.$inferSelect;
