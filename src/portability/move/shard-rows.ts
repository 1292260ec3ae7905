import type { Db } from "../../db/client";

// A mind's rows as a move sees them: every table of the mind's data, read, written and erased
// in bounded batches. Rows keep their ids and search columns (their FTS entries are written by
// the insert triggers); message and history ids are the target database's own (autoincrement).

/** Every table of a mind's data. Copied in this order: a row's parents before it, vector records last. */
export const MIND_TABLES = [
  "chats",
  "sessions",
  "messages",
  "note_extractions",
  "memories",
  "memory_history",
  "notes",
  "cold_memory",
  "cold_versions",
  "consolidations",
  "llm_usage",
  "embeddings",
  "mind_usage",
  "event_streams",
  "events",
  "webhooks",
  "webhook_attempts",
] as const;
export type MindTable = (typeof MIND_TABLES)[number];

/** The mind's outbound events and webhooks: an erasure erases them last, once its mind.erased was delivered (erase.ts). */
export const OUTBOUND_TABLES: readonly MindTable[] = ["webhook_attempts", "webhooks", "events", "event_streams"];

/**
 * Erased in this order: vector records first (the hourly job removes the vectors of records whose
 * row is gone, and the vectors now serve the new copy), children before their parents.
 */
const ERASE_ORDER: MindTable[] = [
  "embeddings",
  "note_extractions",
  "messages",
  "sessions",
  "chats",
  "memory_history",
  "memories",
  "notes",
  "cold_versions",
  "cold_memory",
  "consolidations",
  "llm_usage",
  "mind_usage",
  ...OUTBOUND_TABLES,
];

export interface RowBounds {
  /** Rows read, written or deleted per statement or batch. */
  rows: number;
  /** Bytes of row values per write batch. */
  bytes: number;
}

export const DEFAULT_ROW_BOUNDS: RowBounds = { rows: 100, bytes: 2 * 1024 * 1024 };

export type Row = Record<string, unknown>;

/** Rows of each table of the mind in one database. */
export async function countMindRows(db: Db, mindId: string): Promise<Record<MindTable, number>> {
  const d1 = db.$client;
  const counted = await d1.batch<{ n: number }>(MIND_TABLES.map((name) => d1.prepare(`select count(*) as n from "${name}" where mind_id = ?`).bind(mindId)));
  return Object.fromEntries(MIND_TABLES.map((name, i) => [name, counted[i]!.results[0]?.n ?? 0])) as Record<MindTable, number>;
}

/** One row's insert statement, leaving out `_rowid` and the columns named in `omit`. */
export function insertRow(db: Db, name: MindTable, row: Row, options: { omit?: string[]; verb?: "insert" | "insert or replace"; returning?: string } = {}) {
  const columns = Object.keys(row).filter((c) => c !== "_rowid" && !options.omit?.includes(c));
  const names = columns.map((c) => `"${c}"`).join(", ");
  const marks = columns.map(() => "?").join(", ");
  const returning = options.returning ? ` returning ${options.returning}` : "";
  return db.$client.prepare(`${options.verb ?? "insert"} into "${name}" (${names}) values (${marks})${returning}`).bind(...columns.map((c) => row[c]));
}

export const rowBytes = (row: Row) => Object.values(row).reduce<number>((n, v) => n + (typeof v === "string" ? v.length * 3 : 8), 0);

/**
 * Deletes up to `pages` full statements' worth of the mind's data from one database (a statement
 * that empties its table does not count), in an order that leaves no vector record without its
 * row; `done` once nothing of it is left there.
 */
export async function eraseSomeMindRows(
  db: Db,
  mindId: string,
  bounds: RowBounds,
  pages = 1,
  only?: readonly MindTable[],
): Promise<{ erased: number; done: boolean }> {
  let erased = 0;
  for (const name of ERASE_ORDER.filter((t) => !only || only.includes(t))) {
    for (;;) {
      const { results: gone } = await db.$client
        .prepare(`delete from "${name}" where rowid in (select rowid from "${name}" where mind_id = ? limit ?) returning 1 as one`)
        .bind(mindId, bounds.rows)
        .all();
      erased += gone.length;
      if (gone.length < bounds.rows) break;
      if (--pages <= 0) return { erased, done: false };
    }
  }
  return { erased, done: true };
}

/** Deletes every row of the mind's data from one database (or of the tables named in `only`), a bounded statement at a time. */
export async function eraseMindRows(db: Db, mindId: string, bounds: RowBounds, only?: readonly MindTable[]): Promise<void> {
  while (!(await eraseSomeMindRows(db, mindId, bounds, 50, only)).done);
}
