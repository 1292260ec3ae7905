/** Counts tokens the way OpenAI's cl100k_base tokenizer does: close enough for budgets of any model. */
export type TokenCounter = (text: string) => number;

let loading: Promise<TokenCounter> | undefined;

// User text such as "<|endoftext|>" is counted as plain text, never refused as a special token.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

/** Loads the tokenizer on first use, so requests that never count tokens never pay for its tables. */
export function loadTokenCounter(): Promise<TokenCounter> {
  loading ??= import("gpt-tokenizer/encoding/cl100k_base").then(
    ({ countTokens }) =>
      (text: string) =>
        countTokens(text, PLAIN_TEXT),
  );
  return loading;
}
