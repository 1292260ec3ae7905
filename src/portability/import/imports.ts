import { and, asc, count, eq, inArray, notExists, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type Db } from "../../db/client";
import { deleteWhere, inRounds, type RetentionStep } from "../../db/prune";
import { chats, coldMemory, coldVersions, type ImportRecord, type ImportState, importGuard, importRows, imports, memories, memoryHistory, minds, notes, sessions } from "../../db/schema";
import type { Deps, InShard } from "../../deps";
import { AppError, conflict, mindMoving, notFound } from "../../errors";
import { newId } from "../../ids";
import { afterWrite, writeWith } from "../../memory/outbox";
import { logFailure } from "../../observe/log";
import { messageSearchText } from "../../sessions/history";
import { changingMind, mindRowUpdate } from "../../tenancy/mind-rows";
import { copySettingsToDirectory, getMind, getMindById } from "../../tenancy/minds";
import { checkQuota, readUsage, writeWithinStoredQuota } from "../../tenancy/quotas";
import { DEFAULT_ROW_BOUNDS, eraseMindRows } from "../move/shard-rows";
import { type ArchiveBody, ArchiveReader, dropArchive, IMPORT_INLINE_MAX_BYTES, joinChunks, storeArchive } from "./archive-parts";
import { checkImportFile, type ImportFormat } from "./formats";
import { type Pause, yieldToOthers } from "./pace";
import { dropStagedRows, stageArchive } from "./stage";
import { nextOutsideSlice, type SliceRow, sliceStatements } from "./write";

// An archive import: its request stores the archive (archive-parts.ts); the import's Durable
// Object checks it and stages its rows (stage.ts), then writes them a slice per D1 batch,
// the import's progress moving in the same batch, so a slice is written exactly once whatever fails
// and however often it is retried. An import that cannot finish is undone: the mind is left empty with its settings as they
// were. Both the import and its staged rows live in the database that holds the mind.

/** Reading an import: the directory names the database that holds the mind. */
type ImportReads = Pick<Deps, "directory" | "shards">;
/** Taking an import: its reads and the clock. */
type ImportDeps = ImportReads & Pick<Deps, "clock">;
/** Running an import: the finished rows are embedded at once where the ports are there. */
type RunDeps = ImportDeps & Pick<Deps, "semantic" | "defer">;

/** An import as its owner sees it. */
export interface ArchiveImport {
  id: string;
  mind_id: string;
  state: Exclude<ImportState, "staging" | "checking">;
  rows_total: number;
  rows_written: number;
  /** Rows of each table the archive holds (written once the import is done). */
  counts: ImportCounts;
  /** Why a failed import failed: a code and a message safe to show. */
  error: { code: string; message: string } | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

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

/** An import still in `staging` this long after it began lost its request: it no longer holds the mind. */
const STAGING_ABANDONED_MS = 15 * 60_000;
const UNFINISHED: ImportState[] = ["staging", "checking", "queued", "running", "undoing"];

/** An unfinished import untouched this long has no object writing it any more (lost, or deleted by a deploy). */
export const IMPORT_STALLED_MS = 15 * 60_000;

/** Whether an import past its request still has work for the mind's operations object. */
export const isImportUnfinished = (state: ImportState) => state !== "staging" && UNFINISHED.includes(state);

const toImport = (row: ImportRecord): ArchiveImport => ({
  id: row.id,
  mind_id: row.mindId,
  state: row.state === "staging" || row.state === "checking" ? "queued" : row.state,
  rows_total: row.rowsTotal,
  rows_written: row.rowsWritten,
  counts: toCounts(row.counts),
  error: row.errorCode ? { code: row.errorCode, message: row.errorMessage ?? "" } : null,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  finished_at: row.finishedAt,
});

const toCounts = (kinds: Record<string, number>): ImportCounts => ({
  memories: kinds.memory ?? 0,
  memory_history: kinds.memory_history ?? 0,
  notes: kinds.note ?? 0,
  cold_memory: kinds.cold_memory ?? 0,
  cold_versions: kinds.cold_version ?? 0,
  chats: kinds.chat ?? 0,
  sessions: kinds.session ?? 0,
  messages: kinds.message ?? 0,
});

/**
 * The request's part of an import into an empty mind of the account: the body is read as a
 * stream and stored as the import's file, in parts; the mind's emptiness is checked first. A
 * file up to IMPORT_INLINE_MAX_BYTES is also checked as a whole (a peer's converted into the
 * archive's lines first), with the mind's quotas, before anything is stored (a bad line or field
 * is a 400 naming it); a larger one is checked by its operation, which fails with that error.
 * Answers the queued import; nothing of the mind has changed yet. A failure (a body past
 * IMPORT_MAX_BYTES is a 413) removes what was stored.
 */
export async function acceptImport(
  directoryDeps: ImportDeps, accountId: string, mindId: string, body: ArchiveBody, format: ImportFormat = "archive",
): Promise<{ archiveImport: ArchiveImport; bytes: number }> {
  const mind = await getMind(directoryDeps, accountId, mindId);
  if (mind.moving) throw mindMoving();
  const db = directoryDeps.shards.db(mind.shard);
  const deps = { ...directoryDeps, shard: db };
  const before = await db.select().from(minds).where(eq(minds.id, mindId)).get();
  if (!before) throw notFound("mind");
  const reader = new ArchiveReader(body);
  const head = await reader.readUpTo(IMPORT_INLINE_MAX_BYTES);
  try {
    if (head.ended) {
      const { bytes, archive } = await checkImportFile(format, joinChunks(head.chunks), deps.clock.now().toISOString());
      const { settings, usage } = await readUsage(deps, mindId);
      checkQuota(settings, usage, { memories: archive.lines.memory.length, notes: archive.lines.note.length, bytes: bytes.length });
    }
    if (!(await mindIsEmpty(db, mindId))) throw conflict("the mind is not empty: import restores into an empty mind only");
  } catch (err) {
    await reader.cancel();
    throw err;
  }

  const now = deps.clock.now().toISOString();
  const id = newId("imp");
  const restore = { locale: before.locale, retentionHours: before.retentionHours, settings: before.settings };
  try {
    await claimMind(db, mindId, { id, format }, now, restore);
    const bytes = await storeArchive(db, id, head.chunks, reader);
    const [queued] = await db
      .update(imports)
      .set({ state: "checking", updatedAt: deps.clock.now().toISOString() })
      .where(and(eq(imports.id, id), eq(imports.state, "staging")))
      .returning();
    if (!queued) throw conflict("the import was cancelled while its archive was read");
    return { archiveImport: toImport(queued), bytes };
  } catch (err) {
    await reader.cancel();
    await discardImport(db, id).catch((cleanup: unknown) => logFailure("import_archive_not_discarded", cleanup, { import_id: id }));
    throw err;
  }
}

/**
 * Takes the mind for the import: one unfinished import per mind (a second one would find the
 * mind empty too), and none once a move has closed the mind's rows here (the move checks for an
 * import in the same way).
 */
async function claimMind(db: Db, mindId: string, { id, format }: Pick<ImportRecord, "id" | "format">, now: string, restore: ImportRecord["restore"]): Promise<void> {
  const claimed = await db
    .insert(imports)
    .select(
      db
        .select({
          id: sql<string>`${id}`.as("id"), mindId: sql<string>`${mindId}`.as("mind_id"), state: sql<string>`'staging'`.as("state"),
          rowsTotal: sql<number>`0`.as("rows_total"), rowsWritten: sql<number>`0`.as("rows_written"), slicesTotal: sql<number>`0`.as("slices_total"),
          slicesWritten: sql<number>`0`.as("slices_written"), counts: sql<string>`'{}'`.as("counts"), restore: sql<string>`${JSON.stringify(restore)}`.as("restore"),
          errorCode: sql<null>`null`.as("error_code"), errorMessage: sql<null>`null`.as("error_message"),
          createdAt: sql<string>`${now}`.as("created_at"), updatedAt: sql<string>`${now}`.as("updated_at"), finishedAt: sql<null>`null`.as("finished_at"),
          stagedBy: sql<null>`null`.as("staged_by"), format: sql<string>`${format}`.as("format"),
        })
        .from(minds)
        .where(and(eq(minds.id, mindId), eq(minds.writes, "open"), notExists(unfinishedImportOf(db, mindId, now)))),
    )
    .returning({ id: imports.id });
  if (claimed.length > 0) return;
  const row = await db.select({ writes: minds.writes }).from(minds).where(eq(minds.id, mindId)).get();
  if (row && row.writes !== "open") throw mindMoving();
  throw conflict("an import into this mind is already under way: follow it, or wait until it ends");
}

/** The mind's import that has not ended (staging that stopped long ago counts as ended). */
export const unfinishedImportOf = (db: Db, mindId: string, now: string) =>
  db
    .select({ one: sql`1` })
    .from(imports)
    .where(
      and(
        eq(imports.mindId, mindId),
        inArray(imports.state, UNFINISHED),
        or(sql`${imports.state} <> 'staging'`, sql`${imports.updatedAt} > ${new Date(Date.parse(now) - STAGING_ABANDONED_MS).toISOString()}`),
      ),
    );

/** Whether the mind holds nothing an import would restore: only such a mind takes an import. */
export async function mindIsEmpty(db: Db, mindId: string): Promise<boolean> {
  const tables = [memories, memoryHistory, notes, coldMemory, coldVersions, chats, sessions] as const;
  const counted = await db.batch(
    tables.map((t) => db.select({ n: count() }).from(t).where(eq(t.mindId, mindId))) as unknown as [BatchItem<"sqlite">],
  );
  return (counted as { n: number }[][]).every((rows) => (rows[0]?.n ?? 0) === 0);
}

/** Deletes an import's staged rows a bounded statement at a time, then the import itself (its archive with it). */
async function discardImport(db: Db, importId: string): Promise<void> {
  await dropStagedRows(db, importId);
  await db.delete(imports).where(eq(imports.id, importId));
}

/** The account's import into the mind, as it stands. */
export async function getImport(directoryDeps: ImportReads, accountId: string, mindId: string, importId: string): Promise<ArchiveImport> {
  const mind = await getMind(directoryDeps, accountId, mindId);
  const db = directoryDeps.shards.db(mind.shard);
  const row = await db.select().from(imports).where(and(eq(imports.id, importId), eq(imports.mindId, mindId))).get();
  if (!row || row.state === "staging") throw notFound("import");
  return toImport(row);
}

/**
 * Writes the import's slices in order while `more()` allows, finishing or undoing it when it comes
 * to that; answers the import as it then stands (null once the mind or the import is gone). A fault
 * at any D1 call throws, and calling again resumes from the import's progress; a refusal by the
 * domain (a quota, the mind moving) undoes the import instead. `pause` runs between small pieces
 * of the work (by default a yield to the event loop).
 */
export async function runImport(
  directoryDeps: RunDeps, mindId: string, importId: string, more: () => boolean, pause: Pause = yieldToOthers,
): Promise<ArchiveImport | null> {
  const mind = await getMindById(directoryDeps, mindId).catch((err: unknown) => {
    if (err instanceof AppError && err.code === "not_found") return null;
    throw err;
  });
  if (!mind) return null;
  const deps = { ...directoryDeps, shard: directoryDeps.shards.db(mind.shard) };
  const { shard: db } = deps;
  for (;;) {
    const record = await db.select().from(imports).where(and(eq(imports.id, importId), eq(imports.mindId, mindId))).get();
    if (!record) return null;
    if (record.state === "done" || record.state === "failed" || record.state === "staging") return toImport(record);
    if (record.state === "checking") {
      if (!more() || !(await stageArchive(deps, record, pause))) return toImport(record);
      continue;
    }
    if (record.state === "undoing") {
      await undoImport(deps, record);
      continue;
    }
    if (record.slicesWritten >= record.slicesTotal) {
      await finishImport(deps, record);
      continue;
    }
    if (!more()) return toImport(record);
    try {
      await writeSlice(deps, record, pause);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await markUndoing(db, record, err.code, err.message);
    }
    await pause();
  }
}

/** Gives up on an import that kept failing: it is undone with a code and a message safe to show. */
export async function abandonImport(directoryDeps: RunDeps, mindId: string, importId: string): Promise<ArchiveImport | null> {
  const mind = await getMindById(directoryDeps, mindId).catch(() => null);
  if (!mind) return null;
  const db = directoryDeps.shards.db(mind.shard);
  const record = await db.select().from(imports).where(and(eq(imports.id, importId), eq(imports.mindId, mindId))).get();
  if (!record) return null;
  const gaveUp = { code: "internal", message: "the import could not be written and was undone: the mind is as it was; try again" };
  if (record.state === "checking") {
    // Nothing of the mind was written yet: the import ends with its archive and staged rows dropped.
    const now = new Date().toISOString();
    await db.batch([
      db.update(imports).set({ state: "failed", errorCode: gaveUp.code, errorMessage: gaveUp.message, updatedAt: now, finishedAt: now })
        .where(and(eq(imports.id, record.id), eq(imports.state, "checking"))),
      dropArchive(db, record.id),
    ] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    await dropStagedRows(db, record.id);
  }
  if (record.state === "queued" || record.state === "running") await markUndoing(db, record, gaveUp.code, gaveUp.message);
  return runImport(directoryDeps, mindId, importId, () => false);
}

async function markUndoing(db: Db, record: ImportRecord, code: string, message: string): Promise<void> {
  await db
    .update(imports)
    .set({ state: "undoing", errorCode: code, errorMessage: message, updatedAt: new Date().toISOString() })
    .where(and(eq(imports.id, record.id), inArray(imports.state, ["queued", "running"])));
}

/** One slice in one D1 batch: its rows, the import's progress, the guards, its staged rows gone. */
async function writeSlice(deps: Pick<InShard, "shard" | "clock">, record: ImportRecord, pause: Pause): Promise<void> {
  const { shard: db } = deps;
  const slice = record.slicesWritten;
  const staged = await db
    .select({ seq: importRows.seq, kind: importRows.kind, data: importRows.data })
    .from(importRows)
    .where(and(eq(importRows.importId, record.id), eq(importRows.slice, slice)))
    .orderBy(asc(importRows.seq));
  const rows = staged.map((r) => ({ seq: r.seq, kind: r.kind, data: JSON.parse(r.data) }) as SliceRow);
  const nextOutside = new Map<number, string>();
  const wanted = nextOutsideSlice(rows);
  if (wanted.length > 0) {
    const later = await db
      .select({ seq: importRows.seq, data: importRows.data })
      .from(importRows)
      .where(and(eq(importRows.importId, record.id), inArray(importRows.seq, wanted)));
    for (const r of later) nextOutside.set(r.seq, messageSearchText(record.mindId, (JSON.parse(r.data) as { content: string }).content, false));
  }
  const { statements, need } = await sliceStatements(db, record.mindId, rows, nextOutside, pause);
  const now = deps.clock.now().toISOString();
  const progress = db
    .update(imports)
    .set({ state: "running", slicesWritten: slice + 1, rowsWritten: sql`${imports.rowsWritten} + ${rows.length}`, updatedAt: now })
    .where(and(eq(imports.id, record.id), eq(imports.slicesWritten, slice), inArray(imports.state, ["queued", "running"])));
  // Right after the progress: no row changed there means another attempt wrote this slice.
  const taken = db.insert(importGuard).select(db.select({ ok: sql<number>`0`.as("ok") }).from(minds).where(sql`changes() = 0 and ${minds.id} = ${record.mindId}`));
  const drop = db.delete(importRows).where(and(eq(importRows.importId, record.id), eq(importRows.slice, slice)));
  // A slice may carry the archive's settings: the mind's row changes with it.
  await changingMind(record.mindId, () =>
    writeWithinStoredQuota(deps, record.mindId, need, (guard) =>
      db.batch([...statements, progress, taken, drop, guard] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]),
    ),
  );
}

/** Every slice is written: the directory takes the mind's settings, the rows their vectors. */
async function finishImport(deps: RunDeps & Pick<InShard, "shard">, record: ImportRecord): Promise<void> {
  await copySettingsToDirectory(deps, record.mindId);
  const now = deps.clock.now().toISOString();
  // Archives carry no vectors: the imported rows are marked in the same batch and embedded again (the rest by the hourly job).
  const after = afterWrite({ ...deps, mind: { id: record.mindId } }, { row: "import", what: "finished", ids: [record.id] });
  const done = deps.shard
    .update(imports)
    .set({ state: "done", updatedAt: now, finishedAt: now })
    .where(and(eq(imports.id, record.id), inArray(imports.state, ["queued", "running"])));
  await writeWith(deps.shard, done, after);
  after.landed();
}

/** Erases what the import wrote, restores the mind's settings, drops its staged rows: the mind is as it was. */
async function undoImport({ directory, shard: db }: Pick<InShard, "directory" | "shard">, record: ImportRecord): Promise<void> {
  await eraseMindRows(db, record.mindId, DEFAULT_ROW_BOUNDS, ["messages", "sessions", "chats", "memory_history", "memories", "notes", "cold_versions", "cold_memory"]);
  // The archive's settings are written by the last slice: only then are the old ones restored
  // (a change the owner made meanwhile is kept otherwise).
  if (record.slicesWritten >= record.slicesTotal) {
    const restore = { locale: record.restore.locale, retentionHours: record.restore.retentionHours, settings: record.restore.settings };
    await changingMind(record.mindId, async () => {
      await mindRowUpdate(db, record.mindId, restore);
      // On a shard other than DB the directory's row may have taken the archive's settings already.
      if (db !== directory) await mindRowUpdate(directory, record.mindId, restore);
    });
  }
  await dropStagedRows(db, record.id);
  const now = new Date().toISOString();
  await db.update(imports).set({ state: "failed", updatedAt: now, finishedAt: now }).where(and(eq(imports.id, record.id), eq(imports.state, "undoing")));
}

/** How long an ended import stays readable through GET /minds/:id/import/:importId. */
const ENDED_IMPORT_DAYS = 7;

/**
 * Daily: imports ended over a week ago, and imports whose request stopped while staging: their staged
 * rows first, a batch a round, then the imports left without rows.
 */
export const IMPORT_RETENTION_STEP: RetentionStep = {
  name: "imports",
  run(deps, now, o) {
    const ended = new Date(now.getTime() - ENDED_IMPORT_DAYS * 86_400_000).toISOString();
    const abandoned = new Date(now.getTime() - STAGING_ABANDONED_MS).toISOString();
    const old = sql`select id from imports
      where (state in ('done', 'failed') and updated_at < ${ended}) or (state = 'staging' and updated_at < ${abandoned})`;
    return inRounds(o, async () => {
      const rows = await deleteWhere(deps, sql`import_rows`, sql`select rowid from import_rows where import_id in (${old}) limit ${o.batchSize}`);
      if (rows >= o.batchSize) return rows;
      return deleteWhere(
        deps,
        sql`imports`,
        sql`select rowid from imports where id in (${old})
          and not exists (select 1 from import_rows where import_rows.import_id = imports.id) limit ${o.batchSize}`,
      );
    });
  },
};
