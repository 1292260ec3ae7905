import { STOP_WORDS, stem, words } from "../../src/memory/normalize";
import { asksWhen, namesTime, WHEN_LIFT } from "../../src/memory/rerank";
import { dateTag, type Turn, turnContent } from "./dataset";

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
  /** A question asking "when": turns that speak of a time (yesterday, last week, a month, a year) rise. */
  when: boolean;
  /** bm25's length normalisation per column (BM25F) instead of over the whole row. */
  columnLengths: boolean;
  /** A turn holding two adjacent words of the question next to each other rises. */
  phrase: boolean;
  /** A turn holding more of the question's distinct terms rises (proximity, the turn as the window). */
  proximity: boolean;
}

const quote = (term: string) => `"${term.replaceAll('"', '""')}"`;

/** The text a variant indexes for a turn's own words. */
export function indexText(v: Variant, text: string): string {
  if (!v.normalise) return text;
  const ws = words(text);
  return (v.stem ? ws.map(stem) : ws).join(" ");
}

/** The terms a variant asks for: raw words, or normalised (stemmed, filtered) terms. */
export function queryTermsOf(v: Variant, question: string): string[] {
  if (!v.normalise) return question.split(/\s+/).filter((w) => w !== "");
  const all = words(question);
  const kept = v.stopWords && all.some((w) => !STOP_WORDS.has(w)) ? all.filter((w) => !STOP_WORDS.has(w)) : all;
  return [...new Set(v.stem ? kept.map(stem) : kept)];
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
/** BM25F's length normalisation (b) per column: body, date, neighbours; FTS5 uses 0.75 over the whole row. */
export const COLUMN_B = [0.3, 0, 0.75];

const NAIVE: Variant = {
  name: "naive",
  ...{ normalise: false, stem: false, stopWords: false, dateTags: false, weights: false, neighbours: false, feedback: false },
  ...{ when: false, columnLengths: false, phrase: false, proximity: false },
};
const ALL: Variant = {
  name: "all ideas",
  ...{ normalise: true, stem: true, stopWords: true, dateTags: true, weights: true, neighbours: true, feedback: true },
  ...{ when: true, columnLengths: true, phrase: true, proximity: true },
};

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
    ["when", `+ date-aware: a "when" question lifts turns naming a time (×${WHEN_LIFT}, the product's rule)`],
    ["columnLengths", "+ bm25 length normalisation per column (b 0.3 / 0 / 0.75)"],
    ["phrase", "+ phrase boost: adjacent question words adjacent in the turn (×1.1 each)"],
    ["proximity", "+ proximity boost: each further question term the turn holds (×1.2 each)"],
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

/** Distinct pairs of the question's adjacent (non-stop) words found adjacent in the turn. */
export function phrasesHeld(v: Variant, question: string, body: string): number {
  const seq = words(question).map((w) => (STOP_WORDS.has(w) ? null : v.stem ? stem(w) : w));
  const grams = new Set<string>();
  for (let i = 0; i + 1 < seq.length; i++) if (seq[i] && seq[i + 1] && seq[i] !== seq[i + 1]) grams.add(`${seq[i]} ${seq[i + 1]}`);
  if (grams.size === 0) return 0;
  const terms = body.split(" ");
  const found = new Set<string>();
  for (let i = 0; i + 1 < terms.length; i++) if (grams.has(`${terms[i]} ${terms[i + 1]}`)) found.add(`${terms[i]} ${terms[i + 1]}`);
  return found.size;
}

/** Distinct query terms among a turn's own words and date. */
export function termsHeld(terms: readonly string[], body: string, date: string): number {
  const held = new Set(`${body} ${date}`.split(" "));
  return terms.filter((t) => held.has(t)).length;
}

/** The variant's boosts of one candidate's bm25 score (positive, higher is better). */
export function boosted(v: Variant, score: number, question: string, terms: readonly string[], body: string, date: string): number {
  let s = score;
  if (v.when && asksWhen(question) && namesTime(body)) s *= WHEN_LIFT;
  if (v.phrase) s *= 1 + 0.1 * phrasesHeld(v, question, body);
  if (v.proximity) s *= 1 + 0.2 * Math.max(0, termsHeld(terms, body, date) - 1);
  return s;
}
