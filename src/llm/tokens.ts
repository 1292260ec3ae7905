/** Counts tokens the way OpenAI's cl100k_base tokenizer does: close enough for budgets of any model. */
export type TokenCounter = (text: string) => number;

let loading: Promise<TokenCounter> | undefined;

// User text such as "<|endoftext|>" is counted as plain text, never refused as a special token.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/**
 * The longest run of non-space (or of space) characters handed to the tokenizer whole. Its
 * byte-pair merge costs the square of a run's length: one message of 32,000 letters with no
 * space took 18 s to count. A longer run is counted a slice at a time, which counts at most
 * about one token more per slice than the whole run would.
 */
export const MAX_RUN_CHARS = 64;

const LONG_RUN = new RegExp(`\\S{${MAX_RUN_CHARS + 1},}|\\s{${MAX_RUN_CHARS + 1},}`, "g");

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * The pieces a text is counted in: the text cut before, inside and after each run longer than
 * MAX_RUN_CHARS, so no piece holds a longer run; a surrogate pair is never cut.
 */
function tokenPieces(text: string): string[] {
  const pieces: string[] = [];
  let from = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    if (match.index > from) pieces.push(text.slice(from, match.index));
    const end = match.index + match[0].length;
    for (let at = match.index; at < end; ) {
      let cut = Math.min(at + MAX_RUN_CHARS, end);
      if (cut < end && isHighSurrogate(text.charCodeAt(cut - 1))) cut--;
      pieces.push(text.slice(at, cut));
      at = cut;
    }
    from = end;
  }
  if (from < text.length || pieces.length === 0) pieces.push(text.slice(from));
  return pieces;
}

/** A counter over `countWhole` (the tokenizer) that hands it each piece of a text in turn. */
export function createTokenCounter(countWhole: TokenCounter): TokenCounter {
  return (text) => tokenPieces(text).reduce((n, piece) => n + countWhole(piece), 0);
}

// The tokenizer remembers the tokens of this many distinct words (its default is 100,000; with
// words of up to MAX_RUN_CHARS that could hold ~100 MB of a 128 MB isolate).
const REMEMBERED_WORDS = 10_000;

/** Loads the tokenizer on first use, so requests that never count tokens never pay for its tables. */
export function loadTokenCounter(): Promise<TokenCounter> {
  loading ??= import("gpt-tokenizer/encoding/cl100k_base").then(({ countTokens, setMergeCacheSize }) => {
    setMergeCacheSize(REMEMBERED_WORDS);
    return createTokenCounter((text) => countTokens(text, PLAIN_TEXT));
  });
  return loading;
}
