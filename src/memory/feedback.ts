import { STOP_WORDS, stem } from "./normalize";

// Pseudo-relevance feedback (RM3): a question often shares no word with the memories that answer
// it ("what activities…" against a pottery class), but the memories it does find speak of the
// same things. The words the best hits share, weighted by how rare they are in the mind, are
// asked for again beside the question's own, at a fraction of their weight. The best hits keep
// their places: what the words find follows them, so feedback adds to what the question found
// and never pushes it down.
// Chosen on LoCoMo's conversations 0–4 (bench/parts/context.ts).

/** How many of the best hits are read for words. */
export const FEEDBACK_HITS = 10;
/** How many of their words are asked for again. */
const FEEDBACK_TERMS = 10;
/** The weight of the strongest of them against a question's own term. */
export const FEEDBACK_WEIGHT = 0.3;
/** Words held by more than this share of the mind's memories say nothing of what a hit is about. */
const COMMON_SHARE = 0.1;
/** Candidates looked up in the index, before their rarity is known. */
const FEEDBACK_CANDIDATES = 40;

export interface FeedbackHit {
  score: number;
  /** The hit's indexed content: space-separated terms, as stored. */
  searchContent: string;
}

/**
 * The terms of the best hits by their relevance model: each hit's share of a term among its
 * terms, weighted by the hit's share of the hits' scores; the question's terms, function words
 * and one- or two-letter stems left out. The `FEEDBACK_CANDIDATES` most likely, most likely first.
 */
export function feedbackCandidates(hits: readonly FeedbackHit[], asked: ReadonlySet<string>, token: string): Map<string, number> {
  const skip = new Set([...asked, ...[...STOP_WORDS].map((w) => token + stem(w))]);
  const total = hits.reduce((n, h) => n + h.score, 0);
  const model = new Map<string, number>();
  if (total <= 0) return model;
  for (const hit of hits) {
    const terms = hit.searchContent.split(" ").filter((t) => t.length > token.length + 2 && !skip.has(t));
    for (const term of terms) model.set(term, (model.get(term) ?? 0) + hit.score / total / terms.length);
  }
  return new Map([...model].sort((a, b) => b[1] - a[1]).slice(0, FEEDBACK_CANDIDATES));
}

/**
 * The terms asked for again and their weights in the query: the candidates by likelihood times
 * rarity in the mind (`held`: each term's share of memories holding it), the strongest at
 * `FEEDBACK_WEIGHT` of a question's term and the rest in proportion.
 */
export function feedbackTerms(candidates: ReadonlyMap<string, number>, held: ReadonlyMap<string, { share: number }>): Map<string, number> {
  const ranked = [...candidates]
    .flatMap(([term, p]) => {
      const h = held.get(term);
      return h && h.share > 0 && h.share <= COMMON_SHARE ? [{ term, value: p * Math.log(1 / h.share) }] : [];
    })
    .sort((a, b) => b.value - a.value)
    .slice(0, FEEDBACK_TERMS);
  const top = ranked[0]?.value ?? 0;
  return new Map(top > 0 ? ranked.map((r) => [r.term, FEEDBACK_WEIGHT * (r.value / top)]) : []);
}

/**
 * The hits the words were taken from (`lead`), in their places and with their scores; then the
 * other hits of the search asked again, in its order, scaled so that none scores above the last
 * of the lead.
 */
export function afterLead<T extends { id: string; score: number }>(lead: readonly T[], again: readonly T[]): T[] {
  const led = new Set(lead.map((h) => h.id));
  const rest = again.filter((h) => !led.has(h.id));
  const floor = Math.min(...lead.map((h) => h.score));
  const scale = rest.length > 0 && rest[0]!.score > floor ? floor / rest[0]!.score : 1;
  return [...lead, ...rest.map((h) => ({ ...h, score: h.score * scale }))];
}
