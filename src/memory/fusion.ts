// Reciprocal rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009): each list votes
// 1 / (k + rank) for every item it holds, ranks counted from 1; items are ordered by the sum of
// their votes, ties kept in the order of the first list. It needs no score calibration between
// bm25 and cosine similarity, which live on unrelated scales, and k = 60 is the paper's value:
// large enough that one list's top item cannot outvote agreement between both lists.

export const RRF_K = 60;

export interface Fused<T> {
  item: T;
  score: number;
}

/** Fuses ranked lists of items (best first), identified by `idOf`. */
export function reciprocalRankFusion<T>(lists: T[][], idOf: (item: T) => string, k = RRF_K): Fused<T>[] {
  const fused = new Map<string, { item: T; score: number; first: number }>();
  let order = 0;
  for (const list of lists) {
    list.forEach((item, index) => {
      const id = idOf(item);
      const vote = 1 / (k + index + 1);
      const seen = fused.get(id);
      if (seen) seen.score += vote;
      else fused.set(id, { item, score: vote, first: order++ });
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score || a.first - b.first).map(({ item, score }) => ({ item, score }));
}
