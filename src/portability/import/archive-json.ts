// What JSON.parse lets through silently and an archive must not hold: a key given twice in one
// object (the last would win unseen). Checked on a line that already parsed; lone surrogates,
// refused in every JSON body, are checked by src/json-text.ts.

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
