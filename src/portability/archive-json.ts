// What JSON.parse lets through silently and an archive must not hold: a key given twice in one
// object (the last would win unseen) and a lone UTF-16 surrogate (`\ud800` with no partner),
// which no UTF-8 text can carry. Both are checked on a line that already parsed.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The end of the string that starts at `start` (its closing quote), in valid JSON text. */
function stringEnd(text: string, start: number): number {
  for (let from = start + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return text.length;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** The first key that repeats within one object of valid JSON text, or null. */
export function repeatedKeyIn(text: string): string | null {
  // One entry per open object (its keys so far) or array (null).
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (expectKey) {
        const raw = text.slice(i, end + 1);
        const key = raw.includes("\\") ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        const keys = open.at(-1)!;
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b) {
      open.push(new Set());
      expectKey = true;
    } else if (c === 0x5b) {
      open.push(null);
    } else if (c === 0x7d || c === 0x5d) {
      open.pop();
    } else if (c === 0x2c) {
      expectKey = open.at(-1) instanceof Set;
    }
  }
  return null;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Only an escape can make one: text without it needs no walk. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

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
