import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../../db/client";
import { chats, coldMemory, coldVersions, memories, memoryHistory, messages, notes, sessions } from "../../db/schema";
import { newId } from "../../ids";
import { memorySearchColumns } from "../../memory/memories";
import { toMemoryColumns } from "../../memory/rows";
import { noteValues } from "../../notes/notes";
import { messageSearchText } from "../../sessions/history";
import { storedExternalId, storedRepoPath } from "../../sessions/rows";
import { mindRowUpdate } from "../../tenancy/mind-rows";
import type { QuotaNeed } from "../../tenancy/quotas";
import { storedBytes } from "../../tenancy/quotas";
import { type ArchiveLine, type Line, memoryOfLine } from "../archive";
import type { Pause } from "./pace";
import type { StagedKind } from "./stage";

// Writing one slice of a staged import: its rows become statements of one D1 batch. Rows of a
// table that follow one another share a multi-row insert within D1's bounds.

/** D1 binds at most 100 parameters per statement; a statement also carries at most this much text. */
const MAX_PARAMS = 100;
const BYTES_PER_STATEMENT = 512 * 1024;
/** Characters of text indexed between two pauses (stemming costs about half a millisecond a KB). */
const INDEXED_PER_PAUSE = 32 * 1024;

export interface SliceRow {
  seq: number;
  kind: StagedKind;
  data: Record<string, unknown>;
}

type Data<T extends ArchiveLine["type"]> = Line<T>;
type Statement = BatchItem<"sqlite">;

/** A batch's statements, rows of one table that follow one another gathered into one insert. */
interface StatementBatch {
  insert(table: SQLiteTable, values: Record<string, unknown>): void;
  add(statement: Statement): void;
  /** Ends the insert being gathered and gives every statement, in order. */
  finish(): Statement[];
}

/** What writing a slice's rows shares. */
interface SliceWriter {
  db: Db;
  mindId: string;
  batch: StatementBatch;
  need: Required<QuotaNeed>;
  paced: (chars: number) => Promise<void>;
  /** The indexed text of each searchable message of the slice, by seq, for its neighbours. */
  searchText: Map<number, string>;
  nextOutside: Map<number, string>;
  /** The latest searchable message of each session written so far, within the slice. */
  before: Map<string, number>;
}

/**
 * The statements writing a slice, and what they add to the mind (for its quotas). A message is
 * indexed with its neighbours: the one before it, when an earlier slice wrote it, is read by the
 * statement itself; the one after it, when a later slice writes it, is in `nextOutside` by seq.
 * Pauses between rows once INDEXED_PER_PAUSE characters have been indexed.
 */
export async function sliceStatements(
  db: Db, mindId: string, rows: SliceRow[], nextOutside: Map<number, string>, pause: Pause,
): Promise<{ statements: Statement[]; need: Required<QuotaNeed> }> {
  const paced = createPacer(pause);
  const searchText = await indexMessages(mindId, rows, paced);
  const need = { memories: 0, notes: 0, bytes: 0 };
  const writer: SliceWriter = { db, mindId, batch: createStatementBatch(db), need, paced, searchText, nextOutside, before: new Map() };
  for (const row of rows) await writeRow(writer, row);
  return { statements: writer.batch.finish(), need };
}

/** Pauses once INDEXED_PER_PAUSE characters have been indexed since the last pause. */
function createPacer(pause: Pause): (chars: number) => Promise<void> {
  let indexed = 0;
  return async (chars) => {
    indexed += chars;
    if (indexed < INDEXED_PER_PAUSE) return;
    indexed = 0;
    await pause();
  };
}

function createStatementBatch(db: Db): StatementBatch {
  const statements: Statement[] = [];
  let pending: { table: SQLiteTable; values: Record<string, unknown>[]; bytes: number } | null = null;
  const end = () => {
    if (pending) statements.push(db.insert(pending.table).values(pending.values as never) as unknown as Statement);
    pending = null;
  };
  return {
    insert(table, values) {
      const columns = Object.keys(values).length;
      let bytes = 0;
      for (const v of Object.values(values)) if (typeof v === "string") bytes += v.length * 3;
      if (pending && (pending.table !== table || (pending.values.length + 1) * columns > MAX_PARAMS || pending.bytes + bytes > BYTES_PER_STATEMENT)) end();
      if (!pending) pending = { table, values: [], bytes: 0 };
      pending.values.push(values);
      pending.bytes += bytes;
    },
    add(statement) {
      end();
      statements.push(statement);
    },
    finish() {
      end();
      return statements;
    },
  };
}

/** The indexed text of each searchable message of the slice, by seq. */
async function indexMessages(mindId: string, rows: SliceRow[], paced: SliceWriter["paced"]): Promise<Map<number, string>> {
  const searchText = new Map<number, string>();
  for (const row of rows) {
    if (row.kind === "message" && !(row.data as Data<"message">).ephemeral) {
      const { content } = row.data as Data<"message">;
      searchText.set(row.seq, messageSearchText(mindId, content, false));
      await paced(content.length);
    }
  }
  return searchText;
}

async function writeRow(w: SliceWriter, { seq, kind, data }: SliceRow): Promise<void> {
  const { batch, mindId } = w;
  switch (kind) {
    case "memory":
      return writeMemory(w, data as Data<"memory">);
    case "memory_history": {
      const h = data as Data<"memory_history">;
      return batch.insert(memoryHistory, { mindId, memoryId: h.memory_id, action: h.action, actor: h.actor, oldContent: h.old_content, newContent: h.new_content, at: h.at, changes: h.changes ?? null });
    }
    case "chat": {
      const c = data as Data<"chat">;
      return batch.insert(chats, { id: c.id, mindId, agent: c.agent, kind: c.kind, externalId: storedExternalId(c.agent, c.external_id), createdAt: c.created_at });
    }
    case "session":
      return writeSession(w, data as Data<"session"> & { agent: string });
    case "chat_active": {
      const { chat_id, session_id } = data as { chat_id: string; session_id: string };
      return batch.add(w.db.update(chats).set({ activeSessionId: session_id }).where(and(eq(chats.id, chat_id), eq(chats.mindId, mindId))) as unknown as Statement);
    }
    case "message":
      return writeMessage(w, seq, data as Data<"message"> & { next: number | null });
    case "cursor":
      return writeCursor(w, data as { session_id: string; read: number });
    case "note":
      return writeNote(w, data as Data<"note">);
    case "cold_memory": {
      const c = data as Data<"cold_memory">;
      return batch.insert(coldMemory, { mindId, agent: c.agent, text: c.text, version: c.version, writeId: newId("cw"), updatedAt: c.updated_at });
    }
    case "cold_version":
      return writeColdVersion(w, data as Data<"cold_version">);
    case "settings": {
      const s = data as { locale: string; retention_hours: number | null; settings: Record<string, unknown> };
      return batch.add(mindRowUpdate(w.db, mindId, { locale: s.locale, retentionHours: s.retention_hours, settings: s.settings }) as unknown as Statement);
    }
  }
}

async function writeMemory({ batch, mindId, need, paced }: SliceWriter, m: Data<"memory">): Promise<void> {
  need.memories++;
  need.bytes += storedBytes(m.key, m.content, JSON.stringify(m.tags));
  const { type, context, ...memory } = memoryOfLine(m);
  batch.insert(memories, { ...toMemoryColumns({ ...memory, mind_id: mindId }), ...memorySearchColumns(mindId, m.key, m.content, m.tags, context) });
  await paced(m.content.length + (m.context?.length ?? 0));
}

function writeSession({ batch, mindId }: SliceWriter, s: Data<"session"> & { agent: string }): void {
  batch.insert(sessions, {
    id: s.id, mindId, agent: s.agent, chatId: s.chat_id, repoPath: storedRepoPath(s.repo_path), taskName: s.task_name,
    conversationId: s.conversation_id, extractedThroughMessageId: 0, createdAt: s.created_at, lastMessageAt: s.last_message_at,
  });
}

/** A message, indexed with its neighbours' text. */
function writeMessage(w: SliceWriter, seq: number, m: Data<"message"> & { next: number | null }): void {
  const { batch, mindId } = w;
  w.need.bytes += storedBytes(m.content);
  const textOf = (s: number) => w.searchText.get(s) ?? w.nextOutside.get(s) ?? "";
  const next = m.next === null ? "" : textOf(m.next);
  const prior = w.before.get(m.session_id);
  const values = {
    mindId, sessionId: m.session_id, role: m.role, content: m.content, ephemeral: m.ephemeral, tool: m.tool,
    createdAt: m.created_at, searchContent: w.searchText.get(seq) ?? "", searchNear: "",
  };
  if (m.ephemeral) {
    batch.insert(messages, values);
  } else if (prior !== undefined) {
    batch.insert(messages, { ...values, searchNear: `${textOf(prior)} ${next}`.trim() });
  } else {
    // The message before it was written by an earlier slice (or there is none): read there.
    const latest = sql`coalesce((select m.search_content from messages m where m.session_id = ${m.session_id}
      and m.mind_id = ${mindId} and m.ephemeral = 0 order by m.id desc limit 1), '')`;
    batch.add(w.db.insert(messages).values({ ...values, searchNear: sql`trim(${latest} || ' ' || ${next})` }) as unknown as Statement);
  }
  if (!m.ephemeral) w.before.set(m.session_id, seq);
}

/** The extraction cursor moves to the same message in the new ids. */
function writeCursor({ db, batch, mindId }: SliceWriter, { session_id, read }: { session_id: string; read: number }): void {
  batch.add(
    db
      .update(sessions)
      .set({
        extractedThroughMessageId: sql`(select ${messages.id} from ${messages} where ${messages.sessionId} = ${session_id} order by ${messages.id} limit 1 offset ${read - 1})`,
      })
      .where(and(eq(sessions.id, session_id), eq(sessions.mindId, mindId))) as unknown as Statement,
  );
}

async function writeNote({ batch, mindId, need, paced }: SliceWriter, n: Data<"note">): Promise<void> {
  need.notes++;
  need.bytes += storedBytes(n.text);
  const fields = { mindId, agent: n.agent, text: n.text, sessionId: n.session_id, categoryHint: n.category_hint, source: n.source, confidence: n.confidence };
  batch.insert(notes, { ...noteValues(fields, n.created_at, n.context) });
  await paced(n.text.length + (n.context?.length ?? 0));
}

function writeColdVersion({ batch, mindId, need }: SliceWriter, v: Data<"cold_version">): void {
  need.bytes += storedBytes(v.text);
  batch.insert(coldVersions, { mindId, agent: v.agent, version: v.version, text: v.text, author: v.author, consolidationId: v.consolidation_id, createdAt: v.created_at });
}

/** Seqs of messages after the slice that its messages name as their next neighbour. */
export function nextOutsideSlice(rows: SliceRow[]): number[] {
  const last = rows.at(-1)?.seq ?? -1;
  const wanted = new Set<number>();
  for (const row of rows) {
    const next = row.kind === "message" ? (row.data as { next: number | null }).next : null;
    if (next !== null && next > last) wanted.add(next);
  }
  return [...wanted];
}
