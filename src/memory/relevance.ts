// How well a memory answers a query's terms: BM25F (Robertson, Zaragoza and Taylor 2004) over the
// memory's own fields and its context. FTS5's bm25() normalises a term's count by the length of
// the whole row, the context included, against the index's average row: a long answer beside a
// short turn then pushes the turn down, and a long turn is weighed against short chit-chat. Here
// each field is counted apart and the counts are summed before they saturate:
// - the content up to STATEMENT_TERMS terms is one statement, its length saying nothing; beyond
//   that a term counts per STATEMENT_TERMS terms of text, as density;
// - key and tags are short by design and never normalised;
// - the context (the dialogue around a memory, its document's section) weighs CONTEXT_WEIGHT
//   beside a memory of one statement, and is diluted with a longer memory's own words: a short
//   turn borrows its meaning from what was said around it, a long one speaks for itself. Its own
//   length is normalised as bm25 does (b 0.75), against the index's average context.
// Chosen on LoCoMo and the development half of LongMemEval together (bench/lib/ablation.ts).

/** bm25's term-frequency saturation, FTS5's k1. */
const K1 = 1.2;
/** FTS5's length normalisation (b), used to read its scores back into counts. */
const FTS_B = 0.75;
/** Content up to this many terms is one statement: no length normalisation below it. */
export const STATEMENT_TERMS = 50;
/** The context's weight beside the words of a memory of one statement. */
export const CONTEXT_WEIGHT = 0.5;
/** The weights of key and tags beside the content's. */
const KEY_WEIGHT = 3;
const TAGS_WEIGHT = 2;
/** bm25's length normalisation of the context. */
const CONTEXT_B = 0.75;

/** The columns of the full-text index, in its order. */
export const INDEX_COLUMNS = ["key", "content", "tags", "context"] as const;

/** What the index says of the mind and itself: rows, and each column's average length in terms. */
export interface IndexStats {
  /** Rows of the whole index, and of the mind. */
  indexRows: number;
  mindRows: number;
  /** Average terms per row in each column, over the whole index (FTS5's own averages). */
  averages: Record<(typeof INDEX_COLUMNS)[number], number>;
}

/** A query term: how many of the mind's memories hold it, and how much the query weighs it. */
export interface WeighedTerm {
  term: string;
  memories: number;
  weight: number;
}

/** A candidate's indexed fields (space-separated terms) and what the index scored its context with. */
export interface Fields {
  searchKey: string;
  searchContent: string;
  searchTags: string;
  /** Terms in the context. */
  contextTerms: number;
  /** FTS5's bm25 of the context column alone for each query term the context holds, by the term's place in the query. */
  contextScores: ReadonlyMap<number, number>;
}

/** bm25's inverse document frequency as FTS5 computes it: never below a millionth. */
export const idf = (rows: number, holding: number) => {
  const value = Math.log((rows - holding + 0.5) / (holding + 0.5));
  return value > 0 ? value : 1e-6;
};

const termsOf = (indexed: string) => (indexed === "" ? [] : indexed.split(" "));

function counts(indexed: string): { length: number; of: Map<string, number> } {
  const of = new Map<string, number>();
  const terms = termsOf(indexed);
  for (const t of terms) of.set(t, (of.get(t) ?? 0) + 1);
  return { length: terms.length, of };
}

/**
 * How often a term stands in the context, read back from FTS5's bm25 of the context column
 * (`score`, positive): bm25 = idf × tf × (k1 + 1) / (tf + K), K from the whole row's length.
 */
export function countFromScore(score: number, termIdf: number, rowTerms: number, averageRowTerms: number): number {
  if (score <= 0) return 0;
  const k = K1 * (1 - FTS_B + (FTS_B * rowTerms) / Math.max(averageRowTerms, 1e-9));
  const room = termIdf * (K1 + 1) - score;
  return room <= 0 ? rowTerms : Math.max(0, Math.round((score * k) / room));
}

/** The candidate's BM25F score for the weighed terms (see the top of this file). */
export function relevance(fields: Fields, terms: readonly WeighedTerm[], stats: IndexStats): number {
  const key = counts(fields.searchKey);
  const content = counts(fields.searchContent);
  const tags = counts(fields.searchTags);
  const averageRow = INDEX_COLUMNS.reduce((n, c) => n + stats.averages[c], 0);
  const rowTerms = key.length + content.length + tags.length + fields.contextTerms;
  const contentNorm = Math.max(1, content.length / STATEMENT_TERMS);
  const contextNorm = 1 - CONTEXT_B + (CONTEXT_B * fields.contextTerms) / Math.max(stats.averages.context, 1e-9);
  let score = 0;
  terms.forEach((t, i) => {
    const indexScore = fields.contextScores.get(i) ?? 0;
    const inContext = indexScore > 0 ? countFromScore(indexScore, idf(stats.indexRows, t.memories), rowTerms, averageRow) : 0;
    const f =
      KEY_WEIGHT * (key.of.get(t.term) ?? 0) +
      ((content.of.get(t.term) ?? 0) + (CONTEXT_WEIGHT * inContext) / contextNorm) / contentNorm +
      TAGS_WEIGHT * (tags.of.get(t.term) ?? 0);
    if (f > 0) score += t.weight * idf(stats.mindRows, t.memories) * ((f * (K1 + 1)) / (f + K1));
  });
  return score;
}
