import { queryTerms, stem, words } from "../memory/normalize";

// A memory is handed over whole: a cut loses the words that answer as often as it keeps them
// (the answer tends to sit in the sentence after the one sharing the message's words). Only a
// memory that would take a large share of the budget by itself is cut, to the sentences sharing
// a word with the message and the sentence after each (the cut marked with an ellipsis).

/** Texts up to this many characters are always shown whole. */
export const TRIM_FROM_CHARS = 80;
/** A memory is cut only when whole it would take more than this share of the budget. */
export const CUT_SHARE = 1 / 8;
const SENTENCE_END = /(?<=[.!?…])\s+(?=\S)/u;
const GAP = "…";

/** When a memory is cut: when it is long for the budget (the default), every text over TRIM_FROM_CHARS, or never. */
export type CutRule = "long" | "always" | "never";

/** The stems a message asks about, to match sentences against. */
export function messageStems(q: string | null): ReadonlySet<string> {
  return new Set(q ? queryTerms(q) : []);
}

/** Whether a text of this many tokens is cut under the rule at this budget. */
export function isCut(rule: CutRule, text: string, tokens: number, budget: number): boolean {
  if (rule === "never" || text.length <= TRIM_FROM_CHARS) return false;
  return rule === "always" || tokens > budget * CUT_SHARE;
}

/**
 * The first sentence of `text` (it usually says who or what), those sharing a stem with the
 * message and, unless `followers` is false, the sentence after each, in order, with an ellipsis
 * where others were left out. The text is kept whole when it is short, has one sentence, or no
 * sentence (or every one) matches: a memory found by its key, tags or context is shown as it is.
 */
export function trimToMatches(text: string, stems: ReadonlySet<string>, followers = true): string {
  if (stems.size === 0 || text.length <= TRIM_FROM_CHARS) return text;
  const sentences = text.split(SENTENCE_END);
  if (sentences.length < 2) return text;
  const matches = sentences.map((s) => words(s).some((w) => stems.has(stem(w))));
  if (matches.every(Boolean) || !matches.some(Boolean)) return text;
  const keep = matches.map((m, i) => m || i === 0 || (followers && i > 0 && matches[i - 1]!));
  if (keep.every(Boolean)) return text;
  const parts: string[] = [];
  keep.forEach((kept, i) => {
    if (kept) parts.push(sentences[i]!);
    else if (parts.at(-1) !== GAP) parts.push(GAP);
  });
  return parts.join(" ");
}
