import { invalid } from "./errors";

// JSON.parse turns an escape such as `\ud800` with no partner into a lone UTF-16 surrogate,
// which no UTF-8 text can carry: stored, it would silently become U+FFFD. Every JSON body (the
// API's, /mcp's, an archive's lines) refuses one, naming where it is. Raw bytes that are not
// UTF-8 are another matter: decoding already turned them into U+FFFD before any check.

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Only an escape can make one: text without it needs no walk. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** Whether a parsed string holds a lone surrogate. */
export const holdsLoneSurrogate = (s: string) => LONE_SURROGATE.test(s);

/** The path of the first string (or key) of a parsed line holding a lone surrogate, or null. */
export function loneSurrogateIn(text: string, value: unknown): string | null {
  if (!SURROGATE_ESCAPE.test(text)) return null;
  const walk = (v: unknown, path: string): string | null => {
    if (typeof v === "string") return LONE_SURROGATE.test(v) ? path : null;
    if (typeof v !== "object" || v === null) return null;
    for (const [key, child] of Object.entries(v)) {
      const at = Array.isArray(v) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      if (LONE_SURROGATE.test(key)) return at;
      const found = walk(child, at);
      if (found) return found;
    }
    return null;
  };
  return walk(value, "");
}

/** The refusal of JSON text holding a lone surrogate at `path` (`where`: whose text, when it needs saying). */
export const loneSurrogateRefused = (path: string, where?: string) =>
  invalid(`${where ? `${where}: ` : ""}${path || "the text"} holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape), which is not text`);

const JSON_TYPE = /^application\/([\w.+-]+\+)?json\s*(;|$)/i;

/** Where a body read as JSON holds a lone surrogate (its path, "" for the whole text), or null: none, or not JSON (its reader answers that). */
export function loneSurrogateInBody(bytes: Uint8Array): string | null {
  const text = new TextDecoder().decode(bytes);
  if (!SURROGATE_ESCAPE.test(text)) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return loneSurrogateIn(text, value);
}

/** A JSON body holding a lone surrogate is refused (400 naming the field); anything else passes. */
export function refuseLoneSurrogates(bytes: Uint8Array, contentType: string | null): void {
  if (!JSON_TYPE.test(contentType ?? "")) return;
  const path = loneSurrogateInBody(bytes);
  if (path !== null) throw loneSurrogateRefused(path);
}
