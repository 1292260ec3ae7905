import { and, count, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { chats, coldMemory, coldVersions, memories, memoryHistory, messages, minds, notes, sessions } from "../db/schema";
import { databaseOfMind, directoryOf } from "../db/client";
import type { Deps } from "../deps";
import { conflict, mindMoving, notFound } from "../errors";
import { newId } from "../ids";
import { memorySearchColumns } from "../memory/memories";
import { noteValues } from "../notes/notes";
import { indexNeighbours, messageSearchText } from "../sessions/history";
import { storedExternalId, storedRepoPath } from "../sessions/model";
import { dropGoneVectors, embedPending, markMissing } from "../memory/semantic";
import type { Line } from "./archive";
import { parseLine } from "./archive-lines";
import { checkArchive, yieldToOthers, type CheckedArchive } from "./import-check";
import { copySettingsToDirectory, getMind } from "./minds";
import { writeWithinQuota } from "./quotas";
import { resolveSettings } from "./settings";

/** Most statements written in one D1 batch, and most bytes of row text in one batch. */
const STATEMENTS_PER_BATCH = 50;
const BYTES_PER_BATCH = 4 * 1024 * 1024;
/** D1 binds at most 100 parameters per statement; a statement also carries at most this much text. */
const MAX_PARAMS = 100;
const BYTES_PER_STATEMENT = 512 * 1024;
/** Rows prepared between two yields to the event loop (indexing a long text costs milliseconds). */
const ROWS_PER_SLICE = 20;

export interface ImportCounts {
  memories: number;
  memory_history: number;
  notes: number;
  cold_memory: number;
  cold_versions: number;
  chats: number;
  sessions: number;
  messages: number;
}

/**
 * Restores an archive (JSONL bytes) into an empty mind of the account. The archive is parsed
 * and checked as a whole first (a bad line is a 400 naming it); then rows are written in
 * bounded batches, each with a fresh id and its references kept. A mind that holds anything
 * answers conflict. A failed write erases what the import had written and restores the
 * mind's settings, so the mind is left as it was.
 */
export async function importMind(directoryDeps: Deps, accountId: string, mindId: string, body: Uint8Array | string): Promise<ImportCounts> {
  const mind = await getMind(directoryDeps, accountId, mindId);
  if (mind.moving) throw mindMoving();
  // The rows, and the shard's copy of the mind's row, go to the database that holds the mind.
  const deps = { ...directoryDeps, db: databaseOfMind(directoryDeps, mind.shard) };
  const { db } = deps;
  const before = await db.select().from(minds).where(and(eq(minds.id, mindId), eq(minds.accountId, accountId))).get();
  if (!before) throw notFound("mind");
  const archive = await checkArchive(typeof body === "string" ? new TextEncoder().encode(body) : body);
  if (!(await isEmpty(db, mindId))) throw conflict("the mind is not empty: import restores into an empty mind only");
  // The archive's size bounds the text it stores: an over-estimate that costs no second pass.
  // The last batch carries the quota guard: a write racing the import past a quota fails it.
  const need = {
    memories: archive.lines.memory.length,
    notes: archive.lines.note.length,
    bytes: typeof body === "string" ? new TextEncoder().encode(body).length : body.length,
  };
  const counts = await writeWithinQuota(deps, mindId, need, async (guard) => {
    try {
      const written = await writeArchive(db, mindId, body instanceof Uint8Array ? body : new TextEncoder().encode(body), archive, guard);
      await copySettingsToDirectory(directoryDeps, mindId);
      return written;
    } catch (err) {
      const restore = { locale: before.locale, retentionHours: before.retentionHours, settings: before.settings };
      await db.batch([...eraseContent(db, mindId), db.update(minds).set(restore).where(eq(minds.id, mindId))]);
      // On a shard other than DB the directory's row may have taken the archive's settings already.
      if (db !== directoryOf(directoryDeps)) await directoryOf(directoryDeps).update(minds).set(restore).where(eq(minds.id, mindId));
      throw err;
    }
  });
  // Archives carry no vectors: the imported rows are embedded again (the rest by the hourly job).
  if (deps.semantic) {
    await markMissing(deps, mindId);
    dropGoneVectors(deps, mindId);
    if (deps.defer) deps.defer(embedPending(deps, mindId).catch((err) => console.error("embedding after import failed", err)));
  }
  return counts;
}

async function isEmpty(db: Db, mindId: string): Promise<boolean> {
  const tables = [memories, memoryHistory, notes, coldMemory, coldVersions, chats, sessions] as const;
  const counted = await db.batch(
    tables.map((t) => db.select({ n: count() }).from(t).where(eq(t.mindId, mindId))) as unknown as [BatchItem<"sqlite">],
  );
  return (counted as { n: number }[][]).every((rows) => (rows[0]?.n ?? 0) === 0);
}

/** Deletes every content row of the mind, keeping the mind, its keys and its ledger. */
function eraseContent(db: Db, mindId: string) {
  return [
    db.delete(chats).where(eq(chats.mindId, mindId)),
    db.delete(sessions).where(eq(sessions.mindId, mindId)),
    db.delete(memories).where(eq(memories.mindId, mindId)),
    db.delete(memoryHistory).where(eq(memoryHistory.mindId, mindId)),
    db.delete(notes).where(eq(notes.mindId, mindId)),
    db.delete(coldMemory).where(eq(coldMemory.mindId, mindId)),
    db.delete(coldVersions).where(eq(coldVersions.mindId, mindId)),
  ] as const;
}

/** Statements sent to D1 in batches bounded by count and by bytes. */
class BatchWriter {
  private pending: BatchItem<"sqlite">[] = [];
  private bytes = 0;
  constructor(private readonly db: Db) {}

  async add(statement: BatchItem<"sqlite">, bytes = 0): Promise<void> {
    this.pending.push(statement);
    this.bytes += bytes;
    if (this.pending.length >= STATEMENTS_PER_BATCH || this.bytes >= BYTES_PER_BATCH) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];
    this.pending = [];
    this.bytes = 0;
    await this.db.batch(batch);
  }

  /** Rows of one table, inserted a statement at a time within the parameter and byte bounds. */
  inserter<T extends Record<string, unknown>>(table: SQLiteTable) {
    let rows: T[] = [];
    let bytes = 0;
    const end = async () => {
      if (rows.length === 0) return;
      const values = rows;
      const size = bytes;
      rows = [];
      bytes = 0;
      await this.add(this.db.insert(table).values(values as never) as unknown as BatchItem<"sqlite">, size);
    };
    return {
      push: async (row: T) => {
        const columns = Object.keys(row).length;
        const size = textBytes(row);
        if (rows.length > 0 && ((rows.length + 1) * columns > MAX_PARAMS || bytes + size > BYTES_PER_STATEMENT)) await end();
        rows.push(row);
        bytes += size;
      },
      end,
    };
  }
}

function textBytes(row: Record<string, unknown>): number {
  let n = 0;
  for (const value of Object.values(row)) if (typeof value === "string") n += value.length * 3;
  return n;
}

/** Writes the checked archive in an order the foreign keys accept, reading each line again. */
async function writeArchive(db: Db, mindId: string, bytes: Uint8Array, archive: CheckedArchive, guard: BatchItem<"sqlite">): Promise<ImportCounts> {
  const { header, lines, ids, extracted } = archive;
  const writer = new BatchWriter(db);
  const each = async <T extends keyof CheckedArchive["lines"]>(type: T, write: (line: Line<T>) => Promise<void>) => {
    for (const [i, ref] of lines[type].entries()) {
      if (i % ROWS_PER_SLICE === ROWS_PER_SLICE - 1) await yieldToOthers();
      await write(parseLine(bytes, ref) as Line<T>);
    }
  };
  const known = (old: string | null) => (old === null ? null : (ids.get(old) ?? null));

  const memoryRows = writer.inserter(memories);
  await each("memory", (m) =>
    memoryRows.push({
      id: ids.get(m.id)!, mindId, agent: m.agent, category: m.category, key: m.key, content: m.content, tags: m.tags,
      priority: m.priority, source: m.source, verified: m.verified, confidence: m.confidence, expiresAt: m.expires_at,
      createdAt: m.created_at, updatedAt: m.updated_at, ...memorySearchColumns(mindId, m.key, m.content, m.tags, m.context),
    }),
  );
  await memoryRows.end();

  // History outlives deleted memories: an id with no memory line still gets one fresh id.
  const historyRows = writer.inserter(memoryHistory);
  const goneMemories = new Map<string, string>();
  await each("memory_history", (h) => {
    let memoryId = ids.get(h.memory_id) ?? goneMemories.get(h.memory_id);
    if (!memoryId) goneMemories.set(h.memory_id, (memoryId = newId("mem")));
    return historyRows.push({ mindId, memoryId, action: h.action, actor: h.actor, oldContent: h.old_content, newContent: h.new_content, at: h.at });
  });
  await historyRows.end();

  const chatRows = writer.inserter(chats);
  const chatAgent = new Map<string, string>();
  await each("chat", (c) => {
    chatAgent.set(c.id, c.agent);
    return chatRows.push({ id: ids.get(c.id)!, mindId, agent: c.agent, kind: c.kind, externalId: storedExternalId(c.agent, c.external_id), createdAt: c.created_at });
  });
  await chatRows.end();
  const sessionRows = writer.inserter(sessions);
  await each("session", (s) =>
    sessionRows.push({
      id: ids.get(s.id)!, mindId, agent: chatAgent.get(s.chat_id)!, chatId: ids.get(s.chat_id)!, repoPath: storedRepoPath(s.repo_path), taskName: s.task_name,
      conversationId: s.conversation_id, extractedThroughMessageId: 0, createdAt: s.created_at, lastMessageAt: s.last_message_at,
    }),
  );
  await sessionRows.end();
  await each("chat", async (c) => {
    const active = known(c.active_session_id);
    if (active) await writer.add(db.update(chats).set({ activeSessionId: active }).where(and(eq(chats.id, ids.get(c.id)!), eq(chats.mindId, mindId))));
  });

  // Message ids are the database's own: each session's messages are inserted in their archive order.
  const messageRows = writer.inserter(messages);
  await each("message", (m) =>
    messageRows.push({
      mindId, sessionId: ids.get(m.session_id)!, role: m.role, content: m.content, ephemeral: m.ephemeral, tool: m.tool,
      createdAt: m.created_at, searchContent: messageSearchText(mindId, m.content, m.ephemeral), searchNear: "",
    }),
  );
  await messageRows.end();
  await writer.add(indexNeighbours(db, mindId) as unknown as BatchItem<"sqlite">);
  // The extraction cursor moves to the same message in the new ids.
  for (const [old, read] of extracted) {
    const sessionId = ids.get(old)!;
    await writer.add(
      db
        .update(sessions)
        .set({
          extractedThroughMessageId: sql`(select ${messages.id} from ${messages} where ${messages.sessionId} = ${sessionId} order by ${messages.id} limit 1 offset ${read - 1})`,
        })
        .where(and(eq(sessions.id, sessionId), eq(sessions.mindId, mindId))),
    );
  }

  // A note's session may have been deleted since: the note keeps no session then.
  const noteRows = writer.inserter(notes);
  await each("note", (n) =>
    noteRows.push({
      ...noteValues(
        { mindId, agent: n.agent, text: n.text, sessionId: known(n.session_id), categoryHint: n.category_hint, source: n.source, confidence: n.confidence },
        n.created_at,
        n.context,
      ),
    }),
  );
  await noteRows.end();

  const coldRows = writer.inserter(coldMemory);
  await each("cold_memory", (c) => coldRows.push({ mindId, agent: c.agent, text: c.text, version: c.version, writeId: newId("cw"), updatedAt: c.updated_at }));
  await coldRows.end();
  const versionRows = writer.inserter(coldVersions);
  await each("cold_version", (v) =>
    versionRows.push({ mindId, agent: v.agent, version: v.version, text: v.text, author: v.author, consolidationId: v.consolidation_id, createdAt: v.created_at }),
  );
  await versionRows.end();

  // Last, so a failed import leaves the mind's settings as they were.
  await writer.add(
    db
      .update(minds)
      .set({ locale: header.mind.locale, retentionHours: header.mind.retention_hours, settings: resolveSettings(header.mind.settings) })
      .where(eq(minds.id, mindId)),
  );
  await writer.add(guard);
  await writer.flush();

  return {
    memories: lines.memory.length,
    memory_history: lines.memory_history.length,
    notes: lines.note.length,
    cold_memory: lines.cold_memory.length,
    cold_versions: lines.cold_version.length,
    chats: lines.chat.length,
    sessions: lines.session.length,
    messages: lines.message.length,
  };
}
