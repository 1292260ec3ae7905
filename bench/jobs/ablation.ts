import { STOP_WORDS, stem, words } from "../../src/memory/normalize";
import { dateTag, turnContent, type Turn } from "../lib/dataset";

/** One combination of retrieval ideas, applied to a raw FTS5 table. */
export interface Variant {
  name: string;
  normalise: boolean;
  stem: boolean;
  stopWords: boolean;
  dateTags: boolean;
  weights: boolean;
  neighbours: boolean;
  /** Pseudo-relevance feedback: a second round with the first round's best hits' rarest shared words. */
  feedback: boolean;
}

const quote = (term: string) => `"${term.replaceAll('"', '""')}"`;

/** The text a variant indexes for a turn's own words. */
export function indexText(v: Variant, text: string): string {
  if (!v.normalise) return text;
  const ws = words(text);
  return (v.stem ? ws.map(stem) : ws).join(" ");
}

/** The MATCH expression a variant sends: raw words, or normalised (stemmed, filtered) terms. */
export function matchExpression(v: Variant, question: string): string | null {
  let terms: string[];
  if (!v.normalise) terms = question.split(/\s+/).filter((w) => w !== "");
  else {
    const all = words(question);
    const kept = v.stopWords && all.some((w) => !STOP_WORDS.has(w)) ? all.filter((w) => !STOP_WORDS.has(w)) : all;
    terms = [...new Set(v.stem ? kept.map(stem) : kept)];
  }
  return terms.length === 0 ? null : terms.map(quote).join(" OR ");
}

/** Column texts of one turn: its words, its session date, the turns around it. */
export function columns(v: Variant, turns: readonly Turn[], i: number): { body: string; date: string; near: string } {
  const t = turns[i]!;
  const around = [turns[i - 1], turns[i + 1]].filter((n): n is Turn => n !== undefined && n.session === t.session);
  return {
    body: indexText(v, turnContent(t)),
    date: v.dateTags ? indexText(v, dateTag(t)) : "",
    near: v.neighbours ? around.map((n) => indexText(v, turnContent(n))).join(" ") : "",
  };
}

/** bm25 column weights: body, date, neighbours. */
export const columnWeights = (v: Variant) => (v.weights ? [1.0, 2.0, 0.5] : [1.0, 1.0, 1.0]);

const NAIVE: Variant = { name: "naive", normalise: false, stem: false, stopWords: false, dateTags: false, weights: false, neighbours: false, feedback: false };
const ALL: Variant = { name: "all ideas", normalise: true, stem: true, stopWords: true, dateTags: true, weights: true, neighbours: true, feedback: true };

/** Ideas added one at a time from the naive baseline, then each one taken out of the full set. */
export const VARIANTS: { ladder: Variant[]; leaveOneOut: Variant[] } = (() => {
  const ladder: Variant[] = [NAIVE];
  const steps: [keyof Omit<Variant, "name">, string][] = [
    ["normalise", "+ normalisation (NFC, lower case, word split)"],
    ["stem", "+ stemming"],
    ["stopWords", "+ stop words dropped from the query"],
    ["dateTags", "+ session-date tags"],
    ["weights", "+ field weights (date ×2, neighbours ×0.5)"],
    ["neighbours", "+ neighbour turns indexed beside each turn"],
    ["feedback", "+ pseudo-relevance feedback (second round, fused by rank)"],
  ];
  for (const [key, name] of steps) ladder.push({ ...ladder[ladder.length - 1]!, [key]: true, name });
  const leaveOneOut = steps
    .filter(([key]) => key !== "normalise")
    .map(([key]) => ({ ...ALL, [key]: false, name: `all ideas − ${String(key)}` }));
  return { ladder, leaveOneOut };
})();

// Feedback: the words of the first round's FEEDBACK_DOCS best hits that are rarest in the
// conversation (highest idf), FEEDBACK_TERMS of them, OR-ed with the question's own terms.
const FEEDBACK_DOCS = 3;
const FEEDBACK_TERMS = 5;

/** Expansion terms from the first round's best hits, weighted by count × idf, query terms left out. */
export function feedbackTerms(queryTerms: readonly string[], topBodies: readonly string[], documentFrequency: Map<string, number>, documents: number): string[] {
  const asked = new Set(queryTerms);
  const weight = new Map<string, number>();
  for (const body of topBodies.slice(0, FEEDBACK_DOCS)) {
    for (const term of body.split(" ")) {
      if (term === "" || asked.has(term) || STOP_WORDS.has(term) || /^\d+$/.test(term)) continue;
      const idf = Math.log(documents / (1 + (documentFrequency.get(term) ?? 0)));
      weight.set(term, (weight.get(term) ?? 0) + idf);
    }
  }
  return [...weight.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, FEEDBACK_TERMS)
    .map(([t]) => t);
}

/** Two rankings merged by reciprocal rank (k = 60). */
export function fuse(a: readonly string[], b: readonly string[], depth: number): string[] {
  const score = new Map<string, number>();
  for (const list of [a, b]) list.forEach((id, rank) => score.set(id, (score.get(id) ?? 0) + 1 / (61 + rank)));
  return [...score.entries()].sort((x, y) => y[1] - x[1]).slice(0, depth).map(([id]) => id);
}

/** The quoted OR expression of a list of terms. */
export const orExpression = (terms: readonly string[]) => terms.map(quote).join(" OR ");

