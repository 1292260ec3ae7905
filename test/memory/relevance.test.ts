import { describe, expect, it } from "vitest";
import { CONTEXT_WEIGHT, countFromScore, type Fields, type IndexStats, idf, relevance, STATEMENT_TERMS } from "../../src/memory/relevance";

const stats: IndexStats = { indexRows: 1000, mindRows: 1000, averages: { key: 2, content: 40, tags: 2, context: 80 } };
const filler = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`);
const fields = (content: string[], more: Partial<Fields> = {}): Fields => ({
  searchKey: "",
  searchContent: content.join(" "),
  searchTags: "",
  contextTerms: 0,
  contextScores: new Map(),
  ...more,
});
const harbour = [{ term: "harbour", memories: 10, weight: 1 }];

// FTS5's bm25 of one term in one column, as it computes it over the whole row.
const fts5 = (tf: number, rowTerms: number, averageRow: number, termIdf: number) => (termIdf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * rowTerms) / averageRow));

describe("how well a memory answers a query's terms", () => {
  it("does not hold a memory's length against it up to one statement, and counts a longer one's terms per statement", () => {
    const short = relevance(fields(["harbour", ...filler(5)]), harbour, stats);
    const statement = relevance(fields(["harbour", ...filler(STATEMENT_TERMS - 1)]), harbour, stats);
    expect(statement).toBeCloseTo(short, 9);
    const long = relevance(fields(["harbour", ...filler(4 * STATEMENT_TERMS - 1)]), harbour, stats);
    const quarter = idf(stats.mindRows, 10) * ((0.25 * 2.2) / (0.25 + 1.2));
    expect(long).toBeCloseTo(quarter, 9);
  });

  it("weighs the context beside a statement, diluted beside a longer memory as its own words are", () => {
    const termIdf = idf(stats.indexRows, 10);
    const withContext = (own: string[]) => {
      const rowTerms = own.length + 80;
      const averageRow = 2 + 40 + 2 + 80;
      return relevance(fields(own, { contextTerms: 80, contextScores: new Map([[0, fts5(1, rowTerms, averageRow, termIdf)]]) }), harbour, stats);
    };
    const f = (x: number) => idf(stats.mindRows, 10) * ((x * 2.2) / (x + 1.2));
    // The context holds the term once, at its average length: half a word beside a statement…
    expect(withContext(filler(10))).toBeCloseTo(f(CONTEXT_WEIGHT), 9);
    // …and a quarter of that beside a memory four statements long.
    expect(withContext(filler(4 * STATEMENT_TERMS))).toBeCloseTo(f(CONTEXT_WEIGHT / 4), 9);
    expect(relevance(fields(filler(10)), harbour, stats)).toBe(0);
  });

  it("reads back how often a term stands in a column from FTS5's bm25 of it", () => {
    const termIdf = idf(5000, 40);
    for (const tf of [1, 2, 3, 7])
      for (const [rowTerms, averageRow] of [
        [12, 30],
        [300, 120],
        [900, 60],
      ] as const)
        expect(countFromScore(fts5(tf, rowTerms, averageRow, termIdf), termIdf, rowTerms, averageRow), `${tf} in ${rowTerms}`).toBe(tf);
    expect(countFromScore(0, termIdf, 10, 10)).toBe(0);
  });
});
