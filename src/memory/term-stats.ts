import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { logFailure } from "../observe/log";
import { INDEX_COLUMNS, type IndexStats, idf } from "./relevance";

/** What the index says of each query term the mind holds, and of the index itself. */
export interface TermStats {
  /** Per term: its weight in FTS5's bm25 (the mind's idf over the index's), the memories holding it, and their share of the mind's. */
  terms: Map<string, { weight: number; memories: number; share: number }>;
  index: IndexStats;
}

/** SQLite varints (FTS5's record format), in order: 7 bits a byte, high bit set while more follow. */
export function readVarints(bytes: Uint8Array, count: number): number[] {
  const values: number[] = [];
  let at = 0;
  while (values.length < count && at < bytes.length) {
    let value = 0;
    for (let i = 0; i < 9 && at < bytes.length; i++) {
      const byte = bytes[at++]!;
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) break;
    }
    values.push(value);
  }
  return values;
}

/** FTS5's averages record: the index's rows, then the terms each column holds in all of them. */
function indexStats(block: ArrayBuffer | number[] | null | undefined, mindRows: number | null | undefined): IndexStats {
  const [rows = 0, ...totals] = block ? readVarints(new Uint8Array(block), 1 + INDEX_COLUMNS.length) : [];
  const averages = Object.fromEntries(INDEX_COLUMNS.map((c, i) => [c, rows > 0 ? (totals[i] ?? 0) / rows : 0])) as IndexStats["averages"];
  return { indexRows: rows, mindRows: mindRows ?? rows, averages };
}

/**
 * Each of the mind's query terms (token and stem) that some memory holds, with the index's
 * averages. bm25 counts a term's documents within the mind (each term is the mind's own) but the
 * rows of the whole index; each term's FTS5 score is scaled by the mind's idf over the index's, so
 * ranking is what bm25 gives on the mind alone. One statement: a vocabulary entry per term and two
 * one-row reads, whatever the database holds. Should the index's own records be unreadable, plain
 * bm25 remains.
 */
export async function termStats(shard: Db, mindId: string, terms: string[]): Promise<TermStats> {
  type Held = { term: string; doc: number; block: ArrayBuffer | number[] | null; mind_rows: number | null };
  let held: Held[];
  try {
    held = await shard.all<Held>(
      sql`select term, doc, (select block from memories_fts_data where id = 1) as block,
        (select memories from mind_usage where mind_id = ${mindId}) as mind_rows
        from memories_fts_terms where term in ${terms}`,
    );
  } catch (err) {
    logFailure("term_weights_unavailable", err, { mind: mindId });
    return { terms: new Map(terms.map((t) => [t, { weight: 1, memories: 1, share: 0 }])), index: indexStats(null, null) };
  }
  const index = indexStats(held[0]?.block, held[0]?.mind_rows);
  const weightOf = (doc: number) => (index.indexRows > 0 ? idf(index.mindRows, doc) / idf(index.indexRows, doc) : 1);
  return {
    terms: new Map(held.map((t) => [t.term, { weight: weightOf(t.doc), memories: t.doc, share: index.mindRows > 0 ? t.doc / index.mindRows : 0 }])),
    index,
  };
}
