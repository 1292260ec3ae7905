import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

// The directory's tables (the DB binding): who exists and where their data lives. Accounts,
// minds with their shard, keys, grants, login links, Telegram claims, cron runs, moves,
// erasures and dead letters. A shard other than DB holds a copy of the row of each mind it
// serves and a bare row of its account (migrations/0014_shards.sql), which its own queries
// read. Every database gets every migration; these tables are only written here otherwise.
// Mirrors migrations/*.sql, which are the source of truth.

export const accounts = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  telegramUserId: integer("telegram_user_id"),
  locale: text("locale").notNull(),
  createdAt: text("created_at").notNull(),
});

export const minds = sqliteTable("minds", {
  id: text("id").primaryKey(),
  accountId: text("account_id").notNull(),
  name: text("name").notNull(),
  locale: text("locale").notNull(),
  retentionHours: integer("retention_hours"),
  settings: text("settings", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
  /** The binding of the database that holds the mind's data (migrations/0014_shards.sql). */
  shard: text("shard").notNull().default("DB"),
  /** Whether this database takes writes to the mind's rows: open, moving, erasing or elsewhere. */
  writes: text("writes").$type<MindWrites>().notNull().default("open"),
  /** Set in the directory while the mind's data is copied to this shard. */
  movingTo: text("moving_to"),
  /** Set in the directory once the mind's erasure began: it then answers as missing everywhere. */
  erasingSince: text("erasing_since"),
  /** The mind has webhooks (migrations/0026_webhooks.sql): its writes wake their delivery. */
  webhooks: integer("webhooks", { mode: "boolean" }).notNull().default(false),
});

export type MindRow = typeof minds.$inferSelect;
export type MindWrites = "open" | "moving" | "erasing" | "elsewhere";

export const mindKeys = sqliteTable("mind_keys", {
  id: text("id").primaryKey(),
  mindId: text("mind_id").notNull(),
  agent: text("agent"),
  name: text("name"),
  prefix: text("prefix").notNull(),
  hash: text("hash").notNull(),
  createdAt: text("created_at").notNull(),
  lastUsedAt: text("last_used_at"),
  revokedAt: text("revoked_at"),
});

export const jobRuns = sqliteTable("job_runs", {
  id: text("id").primaryKey(),
  job: text("job").notNull(),
  cron: text("cron"),
  startedAt: text("started_at").notNull(),
  finishedAt: text("finished_at"),
  counts: text("counts", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  error: text("error"),
});

export const loginLinks = sqliteTable("login_links", {
  tokenHash: text("token_hash").primaryKey(),
  accountId: text("account_id").notNull(),
  mindId: text("mind_id"),
  createdAt: text("created_at").notNull(),
  expiresAt: text("expires_at").notNull(),
  usedAt: text("used_at"),
});

export const telegramUpdates = sqliteTable("telegram_updates", {
  updateId: integer("update_id").primaryKey(),
  receivedAt: text("received_at").notNull(),
});

export const telegramChats = sqliteTable("telegram_chats", {
  telegramChatId: integer("telegram_chat_id").primaryKey(),
  mindId: text("mind_id").notNull(),
  accountId: text("account_id").notNull(),
  kind: text("kind", { enum: ["private", "group"] }).notNull(),
  createdAt: text("created_at").notNull(),
});

export const oauthGrants = sqliteTable("oauth_grants", {
  id: text("id").primaryKey(),
  accountId: text("account_id").notNull(),
  mindId: text("mind_id").notNull(),
  agent: text("agent"),
  clientId: text("client_id").notNull(),
  clientName: text("client_name").notNull(),
  redirectHost: text("redirect_host").notNull(),
  scope: text("scope").notNull(),
  createdAt: text("created_at").notNull(),
  lastUsedAt: text("last_used_at"),
  revokedAt: text("revoked_at"),
});

/** In the directory: a mind's move between shards, run as an operation (migrations/0018_mind_jobs.sql). */
export const mindMoves = sqliteTable("mind_moves", {
  mindId: text("mind_id").primaryKey(),
  fromShard: text("from_shard").notNull(),
  toShard: text("to_shard").notNull(),
  state: text("state").$type<MoveState>().notNull(),
  error: text("error"),
  attempts: integer("attempts").notNull().default(0),
  startedAt: text("started_at").notNull(),
  updatedAt: text("updated_at").notNull(),
  finishedAt: text("finished_at"),
  /** When the directory switched to the target; the old copy stays closed for DIRECTORY_TTL_MS after it. */
  switchedAt: text("switched_at"),
});

export type MoveState = "freezing" | "preparing" | "copying" | "switching" | "switched" | "erasing" | "undoing" | "done" | "abandoned";

/** In the directory: a mind's erasure, kept after it finished as the answer to asking again. */
export const mindErasures = sqliteTable("mind_erasures", {
  mindId: text("mind_id").primaryKey(),
  accountId: text("account_id").notNull(),
  shard: text("shard").notNull(),
  counts: text("counts", { mode: "json" }).$type<Record<string, number>>().notNull(),
  startedAt: text("started_at").notNull(),
  finishedAt: text("finished_at"),
});

/** Minds per shard, kept by triggers on minds: where a new mind goes is one small read. */
export const shardMinds = sqliteTable("shard_minds", {
  shard: text("shard").primaryKey(),
  minds: integer("minds").notNull(),
});

/** In the directory: queue messages that failed every retry (src/queue/dead-letters.ts). */
export const deadLetters = sqliteTable(
  "dead_letters",
  {
    unit: text("unit").notNull(),
    shard: text("shard").notNull(),
    kind: text("kind").notNull(),
    mindId: text("mind_id"),
    namespace: text("namespace"),
    errorCode: text("error_code").notNull(),
    attempts: integer("attempts").notNull(),
    deaths: integer("deaths").notNull(),
    firstAt: text("first_at").notNull(),
    lastAt: text("last_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.shard, t.unit] })],
);

