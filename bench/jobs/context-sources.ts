import type { PackingKnobs } from "../../src/context/knobs";
import type { Semantic } from "../../src/embeddings/ports";
import { ABLATION, assemblyRow, BUDGETS, baselineRow, withMeaning } from "../lib/context-rows";
import { assembled, type ContextSource, topHitsWithin } from "./context";

/** Each idea of the packing taken out alone (its option set back), at 1,500 tokens; then all of them. */
const WITHOUT: Record<string, Partial<PackingKnobs>> = {
  "− cut only when long for the budget (every text over 80 characters cut to its matching sentences, as before)": { cut: "always" },
  "− dates beside the items (listed under their category, not their tags)": { tagHeadings: false },
  "− neighbours of the leading hits, one per 120 budget tokens beyond 800 (what was said around them)": { tokensPerNeighbours: 0 },
  "− neighbours for fewer leading hits at small budgets (one per 150 budget tokens from the first, as before)": { tokensPerNeighbours: 150, neighboursFrom: 0 },
  "− a hit sharing tags with every leading hit lifted by its whole score (by half of it, as before)": { tagLift: 0.5 },
  "− after the hits, what was said around those beyond the leading ones, and only then hits scoring under 5 % of the best (all in rank order, as before)": { weakShare: 0 },
  "− search asked again with the words its ten best hits share, at 0.3 of a question word's weight, what it finds after those ten (pseudo-relevance feedback)": { feedback: false },
  "− duplicates folded": { fold: false },
  "− each memory's day said over it under its heading, newest first (no dates)": { dates: false },
  "− headings, and the instructions' lines on what a mark means, paid only when used (all paid up front)": { lazyHeadings: false },
  "+ no instructions at all (what they cost)": { instructions: false },
  "as before: every text over 80 characters cut, category headings, no neighbours, headings up front": {
    ...{ cut: "always", tagHeadings: false, tokensPerNeighbours: 0, weakShare: 0, lazyHeadings: false, feedback: false },
  },
};

/** A source searching with recall by meaning too (the mind's vectors in `semantic`). */
const meaningful =
  (semantic: Semantic, source: ContextSource): ContextSource =>
  (deps, scope, question) =>
    source({ ...deps, semantic }, scope, question);

/** Every row of the context bench: product and baseline at each budget, with recall by meaning too, then the ablation. */
export function contextSources(semantic: Semantic): Record<string, ContextSource> {
  const rows = BUDGETS.flatMap((b) => [[assemblyRow(b), assembled(b)], [baselineRow(b), topHitsWithin(b)]] as const);
  return {
    ...Object.fromEntries(rows),
    ...Object.fromEntries(rows.map(([name, source]) => [withMeaning(name, semantic.embedder.model), meaningful(semantic, source)])),
    ...Object.fromEntries(Object.entries(WITHOUT).map(([name, departures]) => [`${ABLATION}${name}`, assembled(1500, departures)])),
  };
}
