import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { mindCopyCursors } from "../../db/schema";
import { insertRow, type MindTable, type Row, type RowBounds, rowBytes } from "./shard-rows";

// Copies a mind's rows from one database to another one page at a time. How far each table has
// come is kept on the target (mind_copy_cursors) and written in the same batch as the rows it
// counts, so a copy stopped anywhere (a crash, a failed call, a lost answer) resumes exactly
// where it stood, with no row missing or doubled.
//
// Rows keep their ids, except messages and history entries, whose integer ids the target numbers
// itself (an id taken in one database may be another mind's in the next): messages are copied
// in their order, and a session's extraction cursor moves with them to the new id of the last
// message it had read. Extraction records name the window they read by message ids of the old
// numbering: they are kept as records of the past, their window marked `moved:<old id>`, so no
// later extraction mistakes one for its own window.

interface CopyStep {
  /** The cursor's name: a table, or a second pass over one. */
  name: string;
  table: MindTable;
  shape?: (row: Row) => Row;
  verb?: "insert" | "insert or replace";
  /** Statements for one source row, instead of its insert. */
  write?: (target: Db, mindId: string, row: Row, context: PageContext) => D1PreparedStatement[];
  /** What the page's rows need to know from the source beyond themselves. */
  context?: (source: Db, mindId: string, rows: Row[]) => Promise<PageContext>;
}

type PageContext = Map<unknown, number>;

/** An extraction window's bound in the old numbering; marked once, however often the mind moves. */
const movedWindow = (id: unknown) => (String(id).startsWith("moved:") ? String(id) : `moved:${String(id)}`);

const omit = (row: Row, column: string) => Object.fromEntries(Object.entries(row).filter(([c]) => c !== column));

/** In this order: a row's parents before it, a chat's active session once sessions exist, vector records and usage last. */
const COPY_STEPS: CopyStep[] = [
  { name: "chats", table: "chats", shape: (row) => ({ ...row, active_session_id: null }) },
  // The extraction cursor is renumbered as the session's messages arrive.
  { name: "sessions", table: "sessions", shape: (row) => ({ ...row, extracted_through_message_id: 0 }) },
  {
    name: "messages",
    table: "messages",
    context: sessionCursors,
    write: (target, mindId, row, cursors) => {
      const insert = insertRow(target, "messages", omit(row, "id"));
      if (Number(row.id) > (cursors.get(row.session_id) ?? 0)) return [insert];
      // Read before the move: the cursor names this message under its new id (the session's newest so far).
      const renumber = target.$client
        .prepare("update sessions set extracted_through_message_id = (select max(id) from messages where session_id = ? and mind_id = ?) where id = ? and mind_id = ?")
        .bind(row.session_id, mindId, row.session_id, mindId);
      return [insert, renumber];
    },
  },
  {
    name: "note_extractions",
    table: "note_extractions",
    shape: (row) => ({ ...row, after_message_id: movedWindow(row.after_message_id), through_message_id: movedWindow(row.through_message_id) }),
  },
  {
    name: "chats_active",
    table: "chats",
    write: (target, mindId, row) =>
      row.active_session_id
        ? [target.$client.prepare("update chats set active_session_id = ? where id = ? and mind_id = ?").bind(row.active_session_id, row.id, mindId)]
        : [],
  },
  ...(["memories", "notes", "cold_memory", "cold_versions", "consolidations", "llm_usage"] as const).map((table) => ({ name: table, table })),
  { name: "memory_history", table: "memory_history", shape: (row: Row) => omit(row, "id") },
  // Events and webhooks keep their ids and the delivery's cursors; the log is numbered anew.
  ...(["event_streams", "events", "webhooks"] as const).map((table) => ({ name: table, table })),
  { name: "webhook_attempts", table: "webhook_attempts", shape: (row: Row) => omit(row, "id") },
  // Last: a vector record whose row is missing would have its vector removed by the hourly job.
  { name: "embeddings", table: "embeddings", verb: "insert or replace" },
  // The insert triggers counted what was copied; the source's figures are the exact ones.
  { name: "mind_usage", table: "mind_usage", verb: "insert or replace" },
];

/** Each page's sessions with the id of the last message extracted, as the source numbers them. */
async function sessionCursors(source: Db, mindId: string, rows: Row[]): Promise<PageContext> {
  const ids = [...new Set(rows.map((r) => r.session_id))];
  const found = await source.$client
    .prepare(`select id, extracted_through_message_id as cursor from sessions where mind_id = ? and id in (${ids.map(() => "?").join(", ")})`)
    .bind(mindId, ...ids)
    .all<{ id: string; cursor: number }>();
  return new Map(found.results.map((s) => [s.id, s.cursor]));
}

/**
 * Copies the next page of the mind's rows from `source` to `target`; false once every table is
 * copied. The target is prepared beforehand (the mind's row there, none of its data, no cursors).
 */
export async function copyNextPage(source: Db, target: Db, mindId: string, bounds: RowBounds): Promise<boolean> {
  const cursors = await target.select().from(mindCopyCursors).where(eq(mindCopyCursors.mindId, mindId));
  const step = COPY_STEPS.find((s) => !cursors.some((c) => c.tableName === s.name && c.done));
  if (!step) return false;
  const after = cursors.find((c) => c.tableName === step.name)?.afterRowid ?? 0;
  // Fewer ids per page than D1's 100 bound parameters, for the session cursors' lookup.
  const limit = Math.min(bounds.rows, 90);
  const { results: rows } = await source.$client
    .prepare(`select rowid as _rowid, * from "${step.table}" where mind_id = ? and rowid > ? order by rowid limit ?`)
    .bind(mindId, after, limit)
    .all<Row>();
  const last = rows.length < limit;
  const context = step.context && rows.length > 0 ? await step.context(source, mindId, rows) : new Map<unknown, number>();
  const cursor = (afterRowid: number, done: boolean) =>
    target.$client
      .prepare("insert into mind_copy_cursors (mind_id, table_name, after_rowid, done) values (?, ?, ?, ?) on conflict (mind_id, table_name) do update set after_rowid = excluded.after_rowid, done = excluded.done")
      .bind(mindId, step.name, afterRowid, done ? 1 : 0);

  // One batch per slice of the page bounded by bytes, each moving the cursor past its own rows.
  for (let start = 0; start < rows.length || (start === 0 && rows.length === 0); ) {
    const statements: D1PreparedStatement[] = [];
    let bytes = 0;
    let through = after;
    while (start < rows.length && (statements.length === 0 || bytes < bounds.bytes)) {
      const row = rows[start++]!;
      const shaped = step.shape ? step.shape(row) : row;
      statements.push(...(step.write ? step.write(target, mindId, shaped, context) : [insertRow(target, step.table, shaped, { verb: step.verb })]));
      bytes += rowBytes(shaped);
      through = Number(row._rowid);
    }
    await target.$client.batch([...statements, cursor(through, last && start >= rows.length)]);
    if (rows.length === 0) break;
  }
  return true;
}

/** Forgets how far a copy of the mind into `target` had come. */
export async function dropCopyCursors(target: Db, mindId: string): Promise<void> {
  await target.delete(mindCopyCursors).where(eq(mindCopyCursors.mindId, mindId));
}
