import { and, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import { type ImportRecord, imports } from "../../db/schema";
import type { InShard } from "../../deps";
import { AppError } from "../../errors";
import { newId } from "../../ids";
import { checkQuota, readUsage } from "../../tenancy/quotas";
import { resolveSettings } from "../../tenancy/settings";
import { type Line, memoryOfLine } from "../archive";
import { DEFAULT_ROW_BOUNDS } from "../move/shard-rows";
import { parseLine } from "./archive-lines";
import { dropArchive, readArchive } from "./archive-parts";
import { type CheckedArchive, importedChat } from "./check";
import { checkImportFile } from "./formats";
import { type Pause, yieldToOthers } from "./pace";

// The first step of an import's object: the archive its request stored is checked as a whole
// and becomes the rows to write, in the order the foreign keys accept, each with its fresh ids
// already resolved, so writing one needs nothing but itself. They are staged in D1 and cut into
// slices, each written later in one D1 batch.

/**
 * Checks the import's archive (every line, then the whole) and the mind's quotas, and stages its
 * rows; the import is then `queued` and its archive dropped. A bad archive or a quota fails the import
 * with the error a request would have answered, and nothing is written. The attempt first takes
 * the import over, so an earlier attempt still running stages nothing more; answers false when
 * another attempt took it meanwhile (or the import left `checking`).
 */
export async function stageArchive(deps: Pick<InShard, "shard" | "clock">, record: ImportRecord, pause: Pause = yieldToOthers): Promise<boolean> {
  const { shard } = deps;
  const attempt = newId("stg");
  const owned = and(eq(imports.id, record.id), eq(imports.state, "checking"), eq(imports.stagedBy, attempt));
  const taken = await shard
    .update(imports)
    .set({ stagedBy: attempt, updatedAt: deps.clock.now().toISOString() })
    .where(and(eq(imports.id, record.id), eq(imports.state, "checking")))
    .returning({ id: imports.id });
  if (taken.length === 0) return false;
  await dropStagedRows(shard, record.id);
  let bytes: Uint8Array;
  let archive: CheckedArchive;
  try {
    // A peer's file becomes the archive's lines here; only the converted archive is kept.
    ({ bytes, archive } = await checkImportFile(record.format, await readArchive(shard, record.id), record.createdAt, pause));
    // The archive's size bounds the text it stores: an over-estimate that costs no second pass.
    const { settings, usage } = await readUsage(deps, record.mindId);
    checkQuota(settings, usage, { memories: archive.lines.memory.length, notes: archive.lines.note.length, bytes: bytes.length });
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const now = deps.clock.now().toISOString();
    const failed = shard.update(imports).set({ state: "failed", errorCode: err.code, errorMessage: err.message, updatedAt: now, finishedAt: now }).where(owned);
    await shard.batch([failed, dropArchive(shard, record.id)] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    return true;
  }
  const totals = await stageRows(shard, record.id, attempt, stagedRows(bytes, archive, { settings: record.format === "archive" }), pause);
  const queued = shard
    .update(imports)
    .set({ state: "queued", rowsTotal: totals.rows, slicesTotal: totals.slices, counts: totals.counts, updatedAt: deps.clock.now().toISOString() })
    .where(owned)
    .returning({ id: imports.id });
  const [won] = await shard.batch([queued, dropArchive(shard, record.id)] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return (won as unknown[]).length > 0;
}

/** Deletes an import's staged rows a bounded statement at a time. */
export async function dropStagedRows(shard: Db, importId: string): Promise<void> {
  for (;;) {
    const gone = await shard.$client
      .prepare("delete from import_rows where rowid in (select rowid from import_rows where import_id = ? limit ?) returning 1 as one")
      .bind(importId, DEFAULT_ROW_BOUNDS.rows)
      .all();
    if (gone.results.length < DEFAULT_ROW_BOUNDS.rows) return;
  }
}

/** One row to write: what it is, and its values. */
export interface StagedRow {
  kind: StagedKind;
  data: Record<string, unknown>;
}

export type StagedKind =
  | "memory" | "memory_history" | "chat" | "session" | "chat_active" | "message" | "cursor" | "note" | "cold_memory" | "cold_version" | "settings";

/** A slice holds at most this many rows and this many bytes of staged text: one D1 batch of ~0.1 s. */
export const SLICE_ROWS = 100;
export const SLICE_BYTES = 512 * 1024;
/** Staged text per insert statement (one bound JSON value) and per staging batch. */
const STAGE_STATEMENT_BYTES = 1024 * 1024;
const STAGE_BATCH_BYTES = 1024 * 1024;
/** Rows, or bytes of staged text, between two pauses. */
const ROWS_PER_PAUSE = 50;
const BYTES_PER_PAUSE = 64 * 1024;

/**
 * The archive's rows in write order, reading each line again, with fresh ids in place of the old.
 * The archive's settings are written unless `settings` is false (a peer's file brings none).
 */
export function* stagedRows(bytes: Uint8Array, archive: CheckedArchive, { settings: withSettings = true } = {}): Generator<StagedRow> {
  const { header, lines, ids, extracted } = archive;
  const each = function* <T extends keyof CheckedArchive["lines"]>(type: T): Generator<Line<T>> {
    for (const ref of lines[type]) yield parseLine(bytes, ref) as Line<T>;
  };
  const known = (old: string | null) => (old === null ? null : (ids.get(old) ?? null));

  // History outlives deleted memories, and a replaced statement the memory that replaced it: an
  // id with no memory line still gets one fresh id.
  const goneMemories = new Map<string, string>();
  const memoryId = (old: string) => {
    let fresh = ids.get(old) ?? goneMemories.get(old);
    if (!fresh) goneMemories.set(old, (fresh = newId("mem")));
    return fresh;
  };
  for (const m of each("memory")) {
    const memory = memoryOfLine(m);
    const supersededBy = memory.superseded_by === null ? null : memoryId(memory.superseded_by);
    yield { kind: "memory", data: { ...memory, id: ids.get(m.id)!, superseded_by: supersededBy } };
  }
  for (const h of each("memory_history")) yield { kind: "memory_history", data: { ...h, memory_id: memoryId(h.memory_id) } };
  const chatAgent = new Map<string, string>();
  for (const c of each("chat")) {
    chatAgent.set(c.id, c.agent);
    yield { kind: "chat", data: { ...importedChat(c), id: ids.get(c.id)!, active_session_id: known(c.active_session_id) } };
  }
  for (const s of each("session")) {
    yield { kind: "session", data: { ...s, id: ids.get(s.id)!, chat_id: ids.get(s.chat_id)!, agent: chatAgent.get(s.chat_id)! } };
  }
  for (const c of each("chat")) {
    const active = known(c.active_session_id);
    if (active) yield { kind: "chat_active", data: { chat_id: ids.get(c.id)!, session_id: active } };
  }
  // Each searchable message is indexed with the one before and after it in its session: the one
  // after is named by its place among the messages, so the slice writing this one can read it.
  const next = nextSearchable(archive.messages);
  let i = 0;
  for (const m of each("message")) {
    yield { kind: "message", data: { ...m, session_id: ids.get(m.session_id)!, next: next[i] ?? null } };
    i++;
  }
  for (const [old, read] of extracted) yield { kind: "cursor", data: { session_id: ids.get(old)!, read } };
  // A note's session may have been deleted since: the note keeps no session then.
  for (const n of each("note")) yield { kind: "note", data: { ...n, session_id: known(n.session_id) } };
  for (const c of each("cold_memory")) yield { kind: "cold_memory", data: c };
  for (const v of each("cold_version")) yield { kind: "cold_version", data: v };
  // Last, so an import undone leaves the mind's settings as they were.
  if (!withSettings) return;
  const { locale, retention_hours, settings } = header.mind;
  yield { kind: "settings", data: { locale, retention_hours, settings: resolveSettings(settings) } };
}

/** For each message, the index of the next non-ephemeral message of its session (or null). */
function nextSearchable(messages: CheckedArchive["messages"]): (number | null)[] {
  const next: (number | null)[] = new Array(messages.length).fill(null);
  const later = new Map<string, number>();
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    next[i] = later.get(m.session) ?? null;
    if (!m.ephemeral) later.set(m.session, i);
  }
  return next;
}

export interface StagedTotals {
  rows: number;
  slices: number;
  counts: Record<string, number>;
}

/**
 * Writes the staged rows of an import in bounded batches: each statement inserts many rows from one
 * bound JSON value (D1 binds at most 100 parameters), each slice closes at SLICE_ROWS rows or
 * SLICE_BYTES bytes. Message neighbours are named by their row's seq.
 */
export async function stageRows(shard: Db, importId: string, attempt: string, rows: Iterable<StagedRow>, pause: Pause = yieldToOthers): Promise<StagedTotals> {
  let seq = 0;
  let slice = 0;
  let sliceRows = 0;
  let sliceBytes = 0;
  let firstMessageSeq = -1;
  let sinceYield = 0;
  let chunk: string[] = [];
  let chunkBytes = 0;
  let batch: ReturnType<typeof insertChunk>[] = [];
  let batchBytes = 0;
  const counts: Record<string, number> = {};

  const flushBatch = async () => {
    if (batch.length === 0) return;
    const statements = batch;
    batch = [];
    batchBytes = 0;
    await shard.$client.batch(statements);
  };
  const endChunk = async () => {
    if (chunk.length === 0) return;
    batch.push(insertChunk(shard, importId, attempt, `[${chunk.join(",")}]`));
    batchBytes += chunkBytes;
    chunk = [];
    chunkBytes = 0;
    if (batchBytes >= STAGE_BATCH_BYTES) await flushBatch();
  };

  for (const row of rows) {
    if (row.kind === "message") {
      if (firstMessageSeq < 0) firstMessageSeq = seq;
      const next = row.data.next as number | null;
      row.data.next = next === null ? null : firstMessageSeq + next;
    }
    const text = JSON.stringify([slice, seq, row.kind, JSON.stringify(row.data)]);
    if (chunkBytes + text.length > STAGE_STATEMENT_BYTES) await endChunk();
    chunk.push(text);
    chunkBytes += text.length;
    counts[row.kind] = (counts[row.kind] ?? 0) + 1;
    seq++;
    sliceRows++;
    sliceBytes += text.length;
    if (sliceRows >= SLICE_ROWS || sliceBytes >= SLICE_BYTES) {
      slice++;
      sliceRows = 0;
      sliceBytes = 0;
    }
    sinceYield += text.length;
    if (seq % ROWS_PER_PAUSE === 0 || sinceYield >= BYTES_PER_PAUSE) {
      sinceYield = 0;
      await pause();
    }
  }
  await endChunk();
  await flushBatch();
  return { rows: seq, slices: sliceRows > 0 ? slice + 1 : slice, counts };
}

// Only while the attempt still owns the import: one taken over or ended stages nothing more.
const INSERT_CHUNK = `insert into import_rows (import_id, slice, seq, kind, data)
  select ?1, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]')
  from json_each(?2)
  where exists (select 1 from imports where id = ?1 and state = 'checking' and staged_by = ?3)`;

const insertChunk = (shard: Db, importId: string, attempt: string, json: string) => shard.$client.prepare(INSERT_CHUNK).bind(importId, json, attempt);
