import type { Db } from "../db/client";

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
] as const;
export type MindTable = (typeof MIND_TABLES)[number];

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
];

export interface RowBounds {
  /** Rows read, written or deleted per statement or batch. */
  rows: number;
  /** Bytes of row values per write batch. */
  bytes: number;
}

export const DEFAULT_ROW_BOUNDS: RowBounds = { rows: 100, bytes: 2 * 1024 * 1024 };

export type Row = Record<string, unknown>;

/** A condition on a table's rows beyond the mind: SQL with `?` placeholders and their values. */
export interface RowFilter {
  sql: string;
  values: unknown[];
}

const ALL: RowFilter = { sql: "1", values: [] };

/** Rows of each table of the mind in one database. */
export async function countMindRows(db: Db, mindId: string): Promise<Record<MindTable, number>> {
  const d1 = db.$client;
  const counted = await d1.batch<{ n: number }>(MIND_TABLES.map((name) => d1.prepare(`select count(*) as n from "${name}" where mind_id = ?`).bind(mindId)));
  return Object.fromEntries(MIND_TABLES.map((name, i) => [name, counted[i]!.results[0]?.n ?? 0])) as Record<MindTable, number>;
}

/** The mind's rows of a table in rowid order, a page at a time, each with its rowid as `_rowid`. */
export async function* readMindRows(db: Db, name: MindTable, mindId: string, bounds: RowBounds, where: RowFilter = ALL): AsyncGenerator<Row[]> {
  for (let after = 0; ; ) {
    const { results: rows } = await db.$client
      .prepare(`select rowid as _rowid, * from "${name}" where mind_id = ? and rowid > ? and (${where.sql}) order by rowid limit ?`)
      .bind(mindId, after, ...where.values, bounds.rows)
      .all<Row>();
    if (rows.length > 0) yield rows;
    if (rows.length < bounds.rows) return;
    after = Number(rows.at(-1)!._rowid);
  }
}

/** One row's insert statement, leaving out `_rowid` and the columns named in `omit`. */
export function insertRow(db: Db, name: MindTable, row: Row, options: { omit?: string[]; verb?: "insert" | "insert or replace"; returning?: string } = {}) {
  const columns = Object.keys(row).filter((c) => c !== "_rowid" && !options.omit?.includes(c));
  const names = columns.map((c) => `"${c}"`).join(", ");
  const marks = columns.map(() => "?").join(", ");
  const returning = options.returning ? ` returning ${options.returning}` : "";
  return db.$client.prepare(`${options.verb ?? "insert"} into "${name}" (${names}) values (${marks})${returning}`).bind(...columns.map((c) => row[c]));
}

/** Statements sent in batches bounded by count and bytes; each batch is one transaction. */
export class BoundedBatches {
  private pending: D1PreparedStatement[] = [];
  private bytes = 0;
  constructor(
    private readonly db: Db,
    private readonly bounds: RowBounds,
  ) {}

  async add(statement: D1PreparedStatement, row: Row = {}): Promise<void> {
    this.pending.push(statement);
    this.bytes += rowBytes(row);
    if (this.pending.length >= this.bounds.rows || this.bytes >= this.bounds.bytes) await this.flush();
  }

  async flush(): Promise<D1Result[]> {
    if (this.pending.length === 0) return [];
    const batch = this.pending;
    this.pending = [];
    this.bytes = 0;
    return this.db.$client.batch(batch);
  }
}

export const rowBytes = (row: Row) => Object.values(row).reduce<number>((n, v) => n + (typeof v === "string" ? v.length * 3 : 8), 0);

/**
 * Deletes every row of the mind's data from one database (or of the tables named in `only`), a
 * bounded statement at a time, in an order that leaves no vector record without its row; returns
 * the rows deleted per table.
 */
export async function eraseMindRows(db: Db, mindId: string, bounds: RowBounds, only?: readonly MindTable[]): Promise<Record<string, number>> {
  const erased: Record<string, number> = {};
  for (const name of ERASE_ORDER.filter((t) => !only || only.includes(t))) {
    erased[name] = 0;
    for (;;) {
      const { results: gone } = await db.$client
        .prepare(`delete from "${name}" where rowid in (select rowid from "${name}" where mind_id = ? limit ?) returning 1 as one`)
        .bind(mindId, bounds.rows)
        .all();
      erased[name] += gone.length;
      if (gone.length < bounds.rows) break;
    }
  }
  return erased;
}
