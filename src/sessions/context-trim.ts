import { queryTerms, stem, words } from "../memory/normalize";

// A long memory found for a message usually answers it in one or two of its sentences. Packing
// only those (the cut marked with an ellipsis) leaves room for more memories in the budget.

/** Texts up to this many characters are always shown whole. */
export const TRIM_FROM_CHARS = 80;
const SENTENCE_END = /(?<=[.!?…])\s+(?=\S)/u;
const GAP = "…";

/** The stems a message asks about, to match sentences against. */
export function messageStems(q: string | null): ReadonlySet<string> {
  return new Set(q ? queryTerms(q) : []);
}

/**
 * The first sentence of `text` (it usually says who or what) and those sharing a stem with the
 * message, in order, with an ellipsis where others were left out. The text is kept whole when it
 * is short, has one sentence, or no sentence (or every one) matches: a memory found by its key,
 * tags or context is shown as it is.
 */
export function trimToMatches(text: string, stems: ReadonlySet<string>): string {
  if (stems.size === 0 || text.length <= TRIM_FROM_CHARS) return text;
  const sentences = text.split(SENTENCE_END);
  if (sentences.length < 2) return text;
  const keep = sentences.map((s) => words(s).some((w) => stems.has(stem(w))));
  if (keep.every(Boolean) || !keep.some(Boolean)) return text;
  keep[0] = true;
  const parts: string[] = [];
  keep.forEach((kept, i) => {
    if (kept) parts.push(sentences[i]!);
    else if (parts.at(-1) !== GAP) parts.push(GAP);
  });
  return parts.join(" ");
}
