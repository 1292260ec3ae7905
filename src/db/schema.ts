import { integer, primaryKey, real, sqliteTable, text, unique } from "drizzle-orm/sqlite-core";

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
  /** The binding of the database that holds the mind's data (migrations/0014_shards.sql). */
  shard: text("shard").notNull().default("DB"),
  /** Whether this database takes writes to the mind's rows: open, moving, erasing or elsewhere. */
  writes: text("writes").$type<MindWrites>().notNull().default("open"),
  /** Set in the directory while the mind's data is copied to this shard. */
  movingTo: text("moving_to"),
  /** Set in the directory once the mind's erasure began: it then answers as missing everywhere. */
  erasingSince: text("erasing_since"),
});

export type MindWrites = "open" | "moving" | "erasing" | "elsewhere";

/** Kept exact by triggers (migrations/0008b_mind_usage.sql): what a mind holds, for its quotas. */
export const mindUsage = sqliteTable("mind_usage", {
  mindId: text("mind_id").primaryKey(),
  memories: integer("memories").notNull(),
  notes: integer("notes").notNull(),
  bytes: integer("bytes").notNull(),
});

/** Never holds a row: an insert into it fails a write's batch that passed a quota (src/tenancy/quotas.ts). */
export const quotaGuard = sqliteTable("quota_guard", {
  ok: integer("ok").notNull(),
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
    /** Where the memory came from (dialogue around it, a document section); never its content. */
    context: text("context").notNull().default(""),
    searchContext: text("search_context").notNull().default(""),
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

export const chats = sqliteTable(
  "chats",
  {
    id: text("id").primaryKey(),
    mindId: text("mind_id").notNull(),
    agent: text("agent").notNull(),
    kind: text("kind", { enum: ["telegram", "api"] }).notNull(),
    externalId: text("external_id").notNull(),
    activeSessionId: text("active_session_id"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [unique().on(t.mindId, t.kind, t.externalId)],
);

export const sessions = sqliteTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    mindId: text("mind_id").notNull(),
    agent: text("agent").notNull(),
    chatId: text("chat_id").notNull(),
    repoPath: text("repo_path").notNull(),
    taskName: text("task_name").notNull(),
    conversationId: text("conversation_id").notNull(),
    extractedThroughMessageId: integer("extracted_through_message_id").notNull(),
    createdAt: text("created_at").notNull(),
    lastMessageAt: text("last_message_at"),
  },
  (t) => [unique().on(t.chatId, t.repoPath, t.taskName)],
);

export const messages = sqliteTable("messages", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  mindId: text("mind_id").notNull(),
  sessionId: text("session_id").notNull(),
  role: text("role", { enum: ["user", "assistant", "tool", "system"] }).notNull(),
  content: text("content").notNull(),
  ephemeral: integer("ephemeral", { mode: "boolean" }).notNull(),
  tool: text("tool"),
  createdAt: text("created_at").notNull(),
  searchContent: text("search_content").notNull(),
  /** Index text of the neighbouring messages of the session, searched at a lower weight. */
  searchNear: text("search_near").notNull().default(""),
});

export type MindRow = typeof minds.$inferSelect;
export type MemoryRow = typeof memories.$inferSelect;
export type ChatRow = typeof chats.$inferSelect;
export type SessionRow = typeof sessions.$inferSelect;
export type MessageRow = typeof messages.$inferSelect;

export const notes = sqliteTable("notes", {
  id: text("id").primaryKey(),
  mindId: text("mind_id").notNull(),
  agent: text("agent").notNull(),
  sessionId: text("session_id"),
  text: text("text").notNull(),
  categoryHint: text("category_hint"),
  source: text("source").notNull(),
  confidence: real("confidence").notNull(),
  consolidationId: text("consolidation_id"),
  createdAt: text("created_at").notNull(),
  searchText: text("search_text").notNull(),
  context: text("context").notNull().default(""),
  searchContext: text("search_context").notNull().default(""),
  textKey: text("text_key").notNull(),
});

export const noteExtractions = sqliteTable(
  "note_extractions",
  {
    mindId: text("mind_id").notNull(),
    sessionId: text("session_id").notNull(),
    afterMessageId: text("after_message_id").notNull(),
    throughMessageId: text("through_message_id").notNull(),
    agent: text("agent").notNull(),
    noteCount: integer("note_count").notNull(),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.mindId, t.sessionId, t.afterMessageId] })],
);

export const coldMemory = sqliteTable(
  "cold_memory",
  {
    mindId: text("mind_id").notNull(),
    agent: text("agent").notNull(),
    text: text("text").notNull(),
    version: integer("version").notNull(),
    writeId: text("write_id").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.mindId, t.agent] })],
);

export const coldVersions = sqliteTable(
  "cold_versions",
  {
    mindId: text("mind_id").notNull(),
    agent: text("agent").notNull(),
    version: integer("version").notNull(),
    text: text("text").notNull(),
    author: text("author").notNull(),
    consolidationId: text("consolidation_id"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.mindId, t.agent, t.version] })],
);

export const consolidations = sqliteTable("consolidations", {
  id: text("id").primaryKey(),
  mindId: text("mind_id").notNull(),
  agent: text("agent").notNull(),
  status: text("status").notNull(),
  mode: text("mode").notNull(),
  noteCount: integer("note_count").notNull(),
  attempts: integer("attempts").notNull(),
  fromVersion: integer("from_version"),
  toVersion: integer("to_version"),
  error: text("error"),
  startedAt: text("started_at").notNull(),
  finishedAt: text("finished_at"),
});

export const llmUsage = sqliteTable(
  "llm_usage",
  {
    mindId: text("mind_id").notNull(),
    day: text("day").notNull(),
    purpose: text("purpose").notNull(),
    calls: integer("calls").notNull(),
    failures: integer("failures").notNull(),
    inputTokens: integer("input_tokens").notNull(),
    outputTokens: integer("output_tokens").notNull(),
  },
  (t) => [primaryKey({ columns: [t.mindId, t.day, t.purpose] })],
);

export const jobRuns = sqliteTable("job_runs", {
  id: text("id").primaryKey(),
  job: text("job").notNull(),
  cron: text("cron"),
  startedAt: text("started_at").notNull(),
  finishedAt: text("finished_at"),
  counts: text("counts", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  error: text("error"),
});

export type NoteRow = typeof notes.$inferSelect;
export type ConsolidationRow = typeof consolidations.$inferSelect;

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

export const embeddings = sqliteTable(
  "embeddings",
  {
    kind: text("kind").$type<"memory" | "note">().notNull(),
    rowId: text("row_id").notNull(),
    mindId: text("mind_id").notNull(),
    state: text("state").$type<"pending" | "done">().notNull(),
    attempts: integer("attempts").notNull(),
    nextAttemptAt: text("next_attempt_at").notNull(),
    error: text("error"),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.rowId] })],
);

/** An import written in the background (migrations/0017_import_jobs.sql, src/portability/import-jobs.ts). */
export const importJobs = sqliteTable("import_jobs", {
  id: text("id").primaryKey(),
  mindId: text("mind_id").notNull(),
  state: text("state").$type<ImportState>().notNull(),
  rowsTotal: integer("rows_total").notNull(),
  rowsWritten: integer("rows_written").notNull(),
  slicesTotal: integer("slices_total").notNull(),
  slicesWritten: integer("slices_written").notNull(),
  counts: text("counts", { mode: "json" }).$type<Record<string, number>>().notNull(),
  restore: text("restore", { mode: "json" }).$type<{ locale: string; retentionHours: number | null; settings: Record<string, unknown> }>().notNull(),
  errorCode: text("error_code"),
  errorMessage: text("error_message"),
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
  finishedAt: text("finished_at"),
  /** The checking attempt that owns the staged rows (migrations/0019_import_archive.sql). */
  stagedBy: text("staged_by"),
});

/** staging (the request stores the archive) → checking → queued → running → done; or → undoing → failed. */
export type ImportState = "staging" | "checking" | "queued" | "running" | "undoing" | "done" | "failed";
export type ImportJobRow = typeof importJobs.$inferSelect;

/** What an import still has to write, in write order, a slice per D1 batch. */
export const importRows = sqliteTable(
  "import_rows",
  {
    jobId: text("job_id").notNull(),
    slice: integer("slice").notNull(),
    seq: integer("seq").notNull(),
    kind: text("kind").notNull(),
    data: text("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.slice, t.seq] })],
);

/** An import's archive as its request stored it, in parts, until the job has checked and staged it. */
export const importParts = sqliteTable(
  "import_parts",
  {
    jobId: text("job_id").notNull(),
    part: integer("part").notNull(),
    data: text("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.part] })],
);

/** Never holds a row: an insert into it fails a slice's batch written twice. */
export const importGuard = sqliteTable("import_guard", {
  ok: integer("ok").notNull(),
});

/** In the directory: a mind's move between shards, run as a job (migrations/0018_mind_jobs.sql). */
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
});

export type MoveState = "freezing" | "preparing" | "copying" | "switching" | "erasing" | "undoing" | "done" | "abandoned";

/** On a move's target shard: how far each table of the mind is copied, by the source's rowid. */
export const mindCopyCursors = sqliteTable(
  "mind_copy_cursors",
  {
    mindId: text("mind_id").notNull(),
    tableName: text("table_name").notNull(),
    afterRowid: integer("after_rowid").notNull(),
    done: integer("done", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [primaryKey({ columns: [t.mindId, t.tableName] })],
);

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

/** In every database: units of work a cron run enqueued and not yet finished (src/work/marks.ts). */
export const queuedUnits = sqliteTable("queued_units", {
  unit: text("unit").primaryKey(),
  runId: text("run_id").notNull(),
  queuedAt: text("queued_at").notNull(),
  expiresAt: text("expires_at").notNull(),
  attempts: integer("attempts").notNull(),
  lastError: text("last_error"),
});

/** In the directory: queue messages that failed every retry (src/work/dead-letters.ts). */
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
