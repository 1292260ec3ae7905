import type { Db } from "../db/client";
import { BoundedBatches, insertRow, readMindRows, rowBytes, type MindTable, type Row, type RowBounds, type RowFilter } from "./shard-rows";

// Copies every row of a mind's data from one database to another. Rows keep their ids, except
// messages and history entries, whose integer ids the target numbers itself (an id taken in
// one database may be another mind's in the next): messages are copied in their order, so a
// session's extraction cursor is renumbered with them. Extraction records name the window they
// read by message ids of the old numbering: they are kept as records of the past, their window
// marked `moved:<old id>`, so no later extraction mistakes one for its own window.

/** Copies the mind's rows from `source` into `target`, which holds none of them yet. */
export async function copyMindRows(source: Db, target: Db, mindId: string, bounds: RowBounds): Promise<void> {
  // A chat's active session is set once the sessions exist.
  const active: { chat: string; session: string }[] = [];
  await copyTable(source, target, "chats", mindId, bounds, (row) => {
    if (row.active_session_id) active.push({ chat: String(row.id), session: String(row.active_session_id) });
    return { ...row, active_session_id: null };
  });
  await copyTable(source, target, "sessions", mindId, bounds);
  for await (const sessions of readMindRows(source, "sessions", mindId, bounds)) {
    for (const session of sessions) await copySessionHistory(source, target, mindId, session, bounds);
  }
  await copyTable(source, target, "note_extractions", mindId, bounds, (row) => ({
    ...row,
    after_message_id: `moved:${String(row.after_message_id)}`,
    through_message_id: `moved:${String(row.through_message_id)}`,
  }));
  const writer = new BoundedBatches(target, bounds);
  for (const { chat, session } of active) {
    await writer.add(target.$client.prepare("update chats set active_session_id = ? where id = ? and mind_id = ?").bind(session, chat, mindId));
  }
  await writer.flush();
  for (const name of ["memories", "notes", "cold_memory", "cold_versions", "consolidations", "llm_usage"] as const) {
    await copyTable(source, target, name, mindId, bounds);
  }
  await copyTable(source, target, "memory_history", mindId, bounds, (row) => omit(row, "id"));
  // Last: a vector record whose row is missing would have its vector removed by the hourly job.
  await copyTable(source, target, "embeddings", mindId, bounds, undefined, "insert or replace");
  // The insert triggers counted what was copied; the source's figures are the exact ones.
  await copyTable(source, target, "mind_usage", mindId, bounds, undefined, "insert or replace");
}

async function copyTable(
  source: Db,
  target: Db,
  name: MindTable,
  mindId: string,
  bounds: RowBounds,
  shape: (row: Row) => Row = (row) => row,
  verb: "insert" | "insert or replace" = "insert",
): Promise<void> {
  const writer = new BoundedBatches(target, bounds);
  for await (const rows of readMindRows(source, name, mindId, bounds)) {
    for (const row of rows) {
      const shaped = shape(row);
      await writer.add(insertRow(target, name, shaped, { verb }), shaped);
    }
  }
  await writer.flush();
}

const omit = (row: Row, column: string) => Object.fromEntries(Object.entries(row).filter(([c]) => c !== column));

/** A session's messages in order under the target's ids, then its cursor renumbered. */
async function copySessionHistory(source: Db, target: Db, mindId: string, session: Row, bounds: RowBounds): Promise<void> {
  const renumbered: [number, number][] = [];
  const of: RowFilter = { sql: "session_id = ?", values: [session.id] };
  for await (const rows of readMindRows(source, "messages", mindId, bounds, of)) {
    for (let start = 0; start < rows.length; ) {
      // One batch per slice bounded by bytes, so the new ids come back in the order sent.
      const slice: Row[] = [];
      let bytes = 0;
      while (start < rows.length && (slice.length === 0 || bytes < bounds.bytes)) {
        const row = rows[start++]!;
        slice.push(row);
        bytes += rowBytes(row);
      }
      const inserted = await target.$client.batch<{ id: number }>(slice.map((row) => insertRow(target, "messages", omit(row, "id"), { returning: "id" })));
      slice.forEach((row, i) => renumbered.push([Number(row.id), Number(inserted[i]!.results[0]!.id)]));
    }
  }
  const renumber = (old: number) => renumbered.reduce((found, [was, now]) => (was <= old ? now : found), 0);
  await target.$client
    .prepare("update sessions set extracted_through_message_id = ? where id = ? and mind_id = ?")
    .bind(renumber(Number(session.extracted_through_message_id)), session.id, mindId)
    .run();
}
