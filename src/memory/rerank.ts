// bm25 over the OR of a question's terms lets a memory that repeats one term outrank one that
// holds several of them. A second look at the best candidates lifts each by how many distinct
// terms of the question it holds (its key, content and tags; not its context): proximity with
// the whole memory as the window. Chosen on LoCoMo's conversations 0–4 (bench/parts/retrieval.ts).

/** Each further distinct query term a memory holds raises its score by this share. */
export const COVERAGE_BOOST = 0.2;
/** Candidates fetched per hit returned, so that a memory just below the cut can rise into it. */
export const CANDIDATES_PER_HIT = 2;

/** The indexed text a candidate is looked at again by: space-separated terms, as stored. */
export interface Candidate {
  score: number;
  searchKey: string;
  searchContent: string;
  searchTags: string;
}

/** Distinct query terms found among a candidate's key, content and tags terms. */
function termsHeld(candidate: Candidate, terms: readonly string[]): number {
  const held = new Set([candidate.searchKey, candidate.searchContent, candidate.searchTags].join(" ").split(" "));
  return terms.filter((t) => held.has(t)).length;
}

/** The candidates re-scored by the query terms each holds, best first, cut to `limit`. */
export function rankByCoverage<T extends Candidate>(candidates: readonly T[], terms: readonly string[], limit: number): T[] {
  return candidates
    .map((c, i) => ({ c: { ...c, score: c.score * (1 + COVERAGE_BOOST * Math.max(0, termsHeld(c, terms) - 1)) }, i }))
    .sort((a, b) => b.c.score - a.c.score || a.i - b.i)
    .slice(0, limit)
    .map((x) => x.c);
}
