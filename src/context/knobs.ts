import { TAG_LIFT, WEAK_SHARE } from "./rank";
import type { CutRule } from "./trim";

// The packing's choices, in one place. Every front packs with the defaults; only the benchmark's
// ablation departs from them (bench/jobs/context-sources.ts), through `assembleContextWith`.

/** How memory is packed into the context. */
export interface PackingKnobs {
  /** Verified items carry `[verified]` too (unverified ones are always marked). */
  markVerified: boolean;
  /** When a memory or note is cut to the sentences sharing a word with the message (trim.ts). */
  cut: CutRule;
  /** Search hits fetched: one per this many budget tokens, at least 10, at most `maxHits`. */
  tokensPerHit: number;
  maxHits: number;
  /** A memory's category is said once as a heading over its memories; its key only when it adds words to the text. */
  groupLabels: boolean;
  /** A memory with tags is listed under them (the day it was said, its project), said once as a heading, rather than under its category. */
  tagHeadings: boolean;
  /** Search hits sharing tags with the leading hits are lifted by up to this share of their score (rank.ts; 0: not at all). */
  tagLift: number;
  /** The leading search hits, one per this many budget tokens beyond `neighboursFrom` (0: none), bring their context along: what was said around them. */
  tokensPerNeighbours: number;
  /** Budget tokens left to the hits themselves before any brings its context (a small budget holds few hits). */
  neighboursFrom: number;
  /**
   * After the hits, what was said around those beyond the leading ones; and before it, no hit
   * scoring under this share of the best (one found by little more than words every memory holds).
   * 0: every hit in rank order, and only the leading hits' context.
   */
  weakShare: number;
  /** A fact already taken (the same words, or nearly) is folded into the earlier item rather than repeated. */
  fold: boolean;
  /** A part's heading is paid for by its first item, and a line of the instructions saying what a mark means by the first item shown with it, so what is not shown costs nothing. */
  lazyHeadings: boolean;
  /** The instructions are given (false only measures what they cost). */
  instructions: boolean;
  /** Search asks again with the words its best hits share (memory/feedback.ts). */
  feedback: boolean;
  /** Under its heading, a memory's day is said over it, newest first (a model answers when, how long ago, which came first). */
  dates: boolean;
}

const PRODUCT_KNOBS: PackingKnobs = {
  ...{ markVerified: false, cut: "long", tokensPerHit: 16, maxHits: 200, groupLabels: true, tagHeadings: true },
  ...{ tagLift: TAG_LIFT, weakShare: WEAK_SHARE, tokensPerNeighbours: 120, neighboursFrom: 800, fold: true, lazyHeadings: true, instructions: true, feedback: true },
  dates: true,
};

/** The product's packing, with the given departures from it (none for every front). */
export const packingKnobs = (departures: Partial<PackingKnobs> = {}): PackingKnobs => ({ ...PRODUCT_KNOBS, ...departures });
