import { CONTEXT_WEIGHT, idf, STATEMENT_TERMS } from "../../src/memory/relevance";
import { COVERAGE_BOOST, LEAD_SHARE, SPAN_LIFT, SUBJECT_SHARE, WHEN_LIFT } from "../../src/memory/rerank";

// The ranking ideas as switches, scored in code over the same turns the product stores (content
// `speaker: text`, the session date as tags, the turns around as context; keys are left out), so
// that each idea can be added, taken out or swapped for another on both data sets in seconds.
// raw-fts.ts holds the data and the loop; the product's own code is src/memory/relevance.ts and
// src/memory/rerank.ts, whose constants are imported here.

export interface Variant {
  name: string;
  stem: boolean;
  stopWords: boolean;
  /** Words that frame a question (how many, total, ago, something) dropped from it. */
  questionWords: boolean;
  /** The session date as tags, weighing ×2. */
  tags: boolean;
  /** "row": one bm25 over the row, its length normalised against the average row (FTS5's bm25); "fields": BM25F. */
  fields: "row" | "fields";
  /** BM25F's content normalisation: "statement" (none up to STATEMENT_TERMS, density beyond) or "average" (b 0.75 against the average). */
  content: "statement" | "average";
  /** The turns around as context: not at all, at a constant weight, or weighing less as the turn's own text grows. */
  neighbours: "none" | "constant" | "by-length";
  /** Each further question term held lifts by this share. */
  coverage: number;
  /** Which questions lift the turns that name a time: none, those opening with when (as before), or those asking when, how long ago or which came first. */
  when: "none" | "when" | "asks-when";
  /** A question naming a time back from when it was asked lifts the turns said within it. */
  span: boolean;
  /** The strongest candidates on one subject, the latest statement first. */
  newest: boolean;
  /** Ideas tried and dropped. */
  bigStopList?: boolean;
  proximity?: boolean;
  idfSquared?: boolean;
  bm25Plus?: boolean;
}

export const K1 = 1.2;
/** FTS5's b, and BM25F's for the context and for the content normalised against the average. */
export const B = 0.75;

/** The weight of the context beside a turn of `ownTerms` terms. */
export function contextWeight(v: Variant, ownTerms: number): number {
  if (v.neighbours === "none") return 0;
  return v.neighbours === "constant" ? CONTEXT_WEIGHT : CONTEXT_WEIGHT / Math.max(1, ownTerms / STATEMENT_TERMS);
}

/** The normalisation of a content of `terms` terms against the average `average`. */
export const contentNorm = (v: Variant, terms: number, average: number) =>
  v.content === "statement" ? Math.max(1, terms / STATEMENT_TERMS) : 1 - B + (B * terms) / average;

/** One term's saturated contribution for a summed, normalised count `f`. */
export function saturated(v: Variant, f: number, rows: number, holding: number): number {
  const w = idf(rows, holding);
  return (v.idfSquared ? w * w : w) * ((f * (K1 + 1)) / (f + K1) + (v.bm25Plus ? 0.5 : 0));
}

/** The product's second look: coverage, when, span, with its constants. */
export const LIFTS = { coverage: COVERAGE_BOOST, when: WHEN_LIFT, span: SPAN_LIFT, lead: LEAD_SHARE, subject: SUBJECT_SHARE };

const PRODUCT: Variant = {
  name: "product",
  ...{ stem: true, stopWords: true, questionWords: true, tags: true, fields: "fields", content: "statement", neighbours: "by-length" },
  ...{ coverage: COVERAGE_BOOST, when: "asks-when", span: true, newest: true },
};
const PLAIN: Variant = {
  name: "plain bm25 in code",
  ...{ stem: false, stopWords: false, questionWords: false, tags: false, fields: "row", content: "average", neighbours: "none" },
  ...{ coverage: 0, when: "none", span: false, newest: false },
};
/** The ranking before: one bm25 over the row, neighbours at half weight inside it, coverage ×0.2, when-lift on "when" questions. */
export const BEFORE: Variant = {
  ...PLAIN,
  name: "as before: one bm25 over the row (neighbours ×0.5, date ×2), coverage ×0.2, when ×1.5",
  ...{ stem: true, stopWords: true, tags: true, neighbours: "constant", coverage: 0.2, when: "when" },
};

type Step = [Partial<Variant>, string];
const STEPS: Step[] = [
  [{ stem: true }, "+ stemming"],
  [{ stopWords: true }, "+ stop words dropped from the question"],
  [{ questionWords: true }, "+ question words dropped (how many, total, ago, something)"],
  [{ tags: true }, "+ session date as tags (×2)"],
  [{ fields: "fields", content: "statement" }, `+ each field normalised apart (BM25F), content as one statement up to ${STATEMENT_TERMS} terms`],
  [{ neighbours: "by-length" }, `+ neighbours as context, ×${CONTEXT_WEIGHT} for a turn of one statement, diluted with a longer turn's own words`],
  [{ coverage: COVERAGE_BOOST }, `+ each further question term held ×${1 + COVERAGE_BOOST}`],
  [{ when: "asks-when" }, `+ asked when, how long ago or which first: turns naming a time ×${WHEN_LIFT}`],
  [{ span: true }, `+ a time named back from the question: turns said within it ×${SPAN_LIFT}`],
  [{ newest: true }, `+ the strongest candidates on one subject (≥ ${LEAD_SHARE} of the best, ${SUBJECT_SHARE} of the question's weight), latest first`],
];

/** Ideas tried and dropped, each in place of the product's own. */
const WENT: Step[] = [
  [BEFORE, BEFORE.name],
  [{ fields: "row" }, "product with one bm25 over the row (FTS5's) in place of BM25F"],
  [{ content: "average" }, "product with the content normalised against the average (b 0.75) in place of one statement"],
  [{ neighbours: "constant" }, `product with the neighbours at a constant ×${CONTEXT_WEIGHT}`],
  [{ coverage: 0.2 }, "product with each further term ×1.2 (as before)"],
  [{ when: "when" }, "product lifting times only for questions opening with when (as before)"],
  [{ bigStopList: true }, "product with NLTK's English stop list (179 words)"],
  [{ proximity: true }, "product with a proximity lift: question words within 3 of each other, ×1.1 a pair"],
  [{ idfSquared: true }, "product with idf squared (long questions leaning on rare words)"],
  [{ bm25Plus: true }, "product with BM25+ (each term held adds 0.5 × idf)"],
];

/** The ladder from plain bm25 to the product, each idea taken out of the product, and the ideas that went. */
export const VARIANTS: { ladder: Variant[]; leaveOneOut: Variant[]; went: Variant[] } = (() => {
  const ladder: Variant[] = [PLAIN];
  for (const [change, name] of STEPS) ladder.push({ ...ladder[ladder.length - 1]!, ...change, name });
  const undo = (change: Partial<Variant>) => Object.fromEntries(Object.keys(change).map((k) => [k, PLAIN[k as keyof Variant]]));
  const leaveOneOut = STEPS.map(([change, name]) => ({ ...PRODUCT, ...undo(change), name: `product − ${name.slice(2)}` }));
  const went = WENT.map(([change, name]) => ({ ...PRODUCT, ...change, name }));
  return { ladder, leaveOneOut, went };
})();

/** NLTK's English stop words (as words() splits them). */
export const NLTK_STOP_WORDS: ReadonlySet<string> = new Set(
  "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves what which who whom this that these those am is are was were be been being have has had having do does did doing a an the and but if or because as until while of at by for with about against between into through during before after above below to from up down in out on off over under again further then once here there when where why how all any both each few more most other some such no nor not only own same so than too very s t can will just don should now d ll m o re ve y ain aren couldn didn doesn hadn hasn haven isn ma mightn mustn needn shan shouldn wasn weren won wouldn".split(
    " ",
  ),
);
