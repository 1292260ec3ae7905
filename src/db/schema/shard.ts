import { integer, primaryKey, real, sqliteTable, text, unique } from "drizzle-orm/sqlite-core";

// A shard's tables: a mind's data (memories, notes, cold memory, chats, sessions, messages,
// usage, vectors), its imports and its quota counters, in the database its mind row in the
// directory names (DB is the first shard). A move copies the mind's data among them (the
// tables src/portability/move/shard-rows.ts names), whose writes are fenced while it runs.
// Mirrors migrations/*.sql, which are the source of truth; FTS tables and triggers live only there.

/** Kept exact by triggers (migrations/0008b_mind_usage.sql): what a mind holds, for its quotas. */
export const mindUsage = sqliteTable("mind_usage", {
  mindId: text("mind_id").primaryKey(),
  /** Every row of memories, replaced statements included (as the full-text index counts them). */
  memories: integer("memories").notNull(),
  /** Rows of memories a later statement replaced (migrations/0026): current memories are `memories - replaced`. */
  replaced: integer("replaced").notNull().default(0),
  notes: integer("notes").notNull(),
  bytes: integer("bytes").notNull(),
});

/** Never holds a row: an insert into it fails a write's batch that passed a quota (src/tenancy/quotas.ts). */
export const quotaGuard = sqliteTable("quota_guard", {
  ok: integer("ok").notNull(),
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
    /** When it was stated; null on rows written before 0026: read as created_at (memory/time.ts). */
    observedAt: text("observed_at"),
    /** From when it holds; null: as observed_at. */
    validFrom: text("valid_from"),
    /** Until when it held, once a later statement replaced it (then its key is stored as `key#id`, memory/rows.ts). */
    validUntil: text("valid_until"),
    /** The memory that replaced it; null while it is current. */
    supersededBy: text("superseded_by"),
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
  /** Field → [before, after] of the fields besides content that the change touched (migrations/0022). */
  changes: text("changes", { mode: "json" }).$type<FieldChanges>(),
});

/** What a change did to a memory's fields besides its content: each field's value before and after. */
export type FieldChanges = Record<string, [unknown, unknown]>;

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

export type NoteRow = typeof notes.$inferSelect;
export type ConsolidationRow = typeof consolidations.$inferSelect;

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
    /** 1: written in one namespace per mind (moved by the embeddings job); 2: shared namespaces. */
    vectorLayout: integer("vector_layout").notNull().default(1),
  },
  (t) => [primaryKey({ columns: [t.kind, t.rowId] })],
);

/** An import written in the background (migrations/0017_import_jobs.sql and 0025_imports.sql, src/portability/import/imports.ts). */
export const imports = sqliteTable("imports", {
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
  /** What the stored file is: edgemind's archive, or a peer's file it is converted from (migrations/0026_import_formats.sql). */
  format: text("format").$type<ImportFormat>().notNull().default("archive"),
});

/** An import's file: edgemind's own archive, a mem0 export or a Letta Agent File. */
export type ImportFormat = "archive" | "mem0" | "letta";

/** staging (the request stores the archive) → checking → queued → running → done; or → undoing → failed. */
export type ImportState = "staging" | "checking" | "queued" | "running" | "undoing" | "done" | "failed";
export type ImportRecord = typeof imports.$inferSelect;

/** What an import still has to write, in write order, a slice per D1 batch. */
export const importRows = sqliteTable(
  "import_rows",
  {
    importId: text("import_id").notNull(),
    slice: integer("slice").notNull(),
    seq: integer("seq").notNull(),
    kind: text("kind").notNull(),
    data: text("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.importId, t.slice, t.seq] })],
);

/** An import's archive as its request stored it, in parts, until its operation has checked and staged it. */
export const importParts = sqliteTable(
  "import_parts",
  {
    importId: text("import_id").notNull(),
    part: integer("part").notNull(),
    data: text("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.importId, t.part] })],
);

/** Never holds a row: an insert into it fails a slice's batch written twice. */
export const importGuard = sqliteTable("import_guard", {
  ok: integer("ok").notNull(),
});

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

/** In every database: units of work a cron run enqueued and not yet finished (src/queue/marks.ts). */
export const queuedUnits = sqliteTable("queued_units", {
  unit: text("unit").primaryKey(),
  runId: text("run_id").notNull(),
  queuedAt: text("queued_at").notNull(),
  expiresAt: text("expires_at").notNull(),
  attempts: integer("attempts").notNull(),
  lastError: text("last_error"),
});
export * from "./events";
