import { integer, real, sqliteTable, text, unique } from "drizzle-orm/sqlite-core";

// Mirrors migrations/*.sql, which are the source of truth; FTS tables and triggers live only there.

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
});

export const mindKeys = sqliteTable("mind_keys", {
  id: text("id").primaryKey(),
  mindId: text("mind_id").notNull(),
  agent: text("agent"),
  prefix: text("prefix").notNull(),
  hash: text("hash").notNull(),
  createdAt: text("created_at").notNull(),
  lastUsedAt: text("last_used_at"),
  revokedAt: text("revoked_at"),
});

export const memories = sqliteTable(
  "memories",
  {
    id: text("id").primaryKey(),
    mindId: text("mind_id").notNull(),
    agent: text("agent").notNull(),
    category: text("category").notNull(),
    key: text("key").notNull(),
    content: text("content").notNull(),
    tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
    priority: text("priority").notNull(),
    source: text("source").notNull(),
    verified: integer("verified", { mode: "boolean" }).notNull(),
    confidence: real("confidence").notNull(),
    expiresAt: text("expires_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    searchKey: text("search_key").notNull(),
    searchContent: text("search_content").notNull(),
    searchTags: text("search_tags").notNull(),
  },
  (t) => [unique().on(t.mindId, t.agent, t.category, t.key)],
);

export const memoryHistory = sqliteTable("memory_history", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  mindId: text("mind_id").notNull(),
  memoryId: text("memory_id").notNull(),
  action: text("action").notNull(),
  actor: text("actor").notNull(),
  oldContent: text("old_content"),
  newContent: text("new_content"),
  at: text("at").notNull(),
});

export type MindRow = typeof minds.$inferSelect;
export type MemoryRow = typeof memories.$inferSelect;
