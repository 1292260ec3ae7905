export const RECALL_KS = [5, 10, 25, 50] as const;

/** Share of the evidence turns found within the first k results. */
export function recallAt(ranked: readonly string[], evidence: readonly string[], k: number): number {
  const top = new Set(ranked.slice(0, k));
  return evidence.filter((id) => top.has(id)).length / evidence.length;
}

/** Whether any evidence turn is among the first k results (1 or 0): LongMemEval's turn recall. */
export function foundAt(ranked: readonly string[], evidence: readonly string[], k: number): number {
  const wanted = new Set(evidence);
  return ranked.slice(0, k).some((id) => wanted.has(id)) ? 1 : 0;
}

/** NDCG@k with binary relevance: evidence turns are relevant, everything else is not. */
export function ndcgAt(ranked: readonly string[], evidence: readonly string[], k: number): number {
  const relevant = new Set(evidence);
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(i + 2);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(k, relevant.size); i++) ideal += 1 / Math.log2(i + 2);
  return ideal === 0 ? 0 : dcg / ideal;
}

export interface RetrievalScore {
  questions: number;
  recall: Record<string, number>;
  ndcg10: number;
  byCategory: Record<string, { questions: number; recall: Record<string, number>; ndcg10: number }>;
}

/** One question's ranked turn ids next to its evidence. */
export interface Ranking {
  category: number;
  evidence: string[];
  ranked: string[];
}

/** How a question's recall at k is counted: the share of its evidence found (LoCoMo), or whether any is (LongMemEval). */
export type RecallMeasure = (ranked: readonly string[], evidence: readonly string[], k: number) => number;

function average(rankings: readonly Ranking[], measure: RecallMeasure) {
  const n = rankings.length || 1;
  const recall: Record<string, number> = {};
  for (const k of RECALL_KS) recall[`@${k}`] = (100 * rankings.reduce((s, r) => s + measure(r.ranked, r.evidence, k), 0)) / n;
  const ndcg10 = (100 * rankings.reduce((s, r) => s + ndcgAt(r.ranked, r.evidence, 10), 0)) / n;
  return { questions: rankings.length, recall, ndcg10 };
}

/** Recall@5/10/25/50 and NDCG@10 (in %) overall and per question category. */
export function scoreRetrieval(rankings: readonly Ranking[], measure: RecallMeasure = recallAt): RetrievalScore {
  const byCategory: RetrievalScore["byCategory"] = {};
  for (const c of [...new Set(rankings.map((r) => r.category))].sort()) {
    byCategory[String(c)] = average(rankings.filter((r) => r.category === c), measure);
  }
  return { ...average(rankings, measure), byCategory };
}

/** p-th percentile of the samples (nearest rank). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
