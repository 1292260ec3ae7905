import { COLON, COMMA, JSON_MAX_DEPTH, type JsonPath, OPEN_ARRAY, OPEN_OBJECT, QUOTE, Scanner } from "./json-tokens";

// A peer's file is one JSON document of up to IMPORT_MAX_BYTES. Parsed whole it would become a
// tree of objects several times its size, so it is walked as bytes instead (json-tokens.ts):
// every token is checked as JSON.parse would check it, and only the values its reader picks are
// parsed, one at a time.

/** What the reader does with the value at a path: parse it and hand it over, walk into it, or check it and pass it by. */
export type Pick = "value" | "walk" | "skip";

/** What a value is, seen from its first byte. */
export type JsonKind = "object" | "array" | "string" | "scalar";

/** A reader's answer for a value: what to do with it, or why the file is refused there. */
export type PickAnswer = Pick | { refuse: string };

export interface PickedValue {
  path: JsonPath;
  value: unknown;
  /** The line the value starts on, 1-based. */
  line: number;
}

const kindOf = (byte: number): JsonKind =>
  byte === OPEN_OBJECT ? "object" : byte === OPEN_ARRAY ? "array" : byte === QUOTE ? "string" : "scalar";

/** An open object or array the walk went into. */
interface Frame {
  array: boolean;
  count: number;
  keys: Set<string> | null;
}

/**
 * Walks one JSON document, yielding each value `pick` answers "value" for, parsed, in document
 * order. A syntax error, nesting past JSON_MAX_DEPTH, a key given twice in one object, a lone
 * surrogate in a picked value or a refusal by `pick` is a 400 naming `what`, the line and
 * column, and the path.
 */
export function* pickedValues(bytes: Uint8Array, pick: (path: JsonPath, kind: JsonKind) => PickAnswer, what: string): Generator<PickedValue> {
  const scan = new Scanner(bytes, what);
  const path: (string | number)[] = [];
  const frames: Frame[] = [];
  scan.skipBom();
  for (;;) {
    scan.space();
    const start = scan.pos;
    const byte = scan.peek(path);
    const answer = pick(path, kindOf(byte));
    if (typeof answer === "object") scan.fail(path, answer.refuse);
    if (answer === "value") {
      const line = scan.line;
      scan.skipValue(path);
      yield { path: [...path], value: scan.parse(start, scan.pos, path), line };
    } else if (answer === "walk" && (byte === OPEN_OBJECT || byte === OPEN_ARRAY)) {
      if (frames.length >= JSON_MAX_DEPTH) scan.fail(path, `nested deeper than ${JSON_MAX_DEPTH} levels`);
      scan.pos++;
      const frame: Frame = { array: byte === OPEN_ARRAY, count: 0, keys: byte === OPEN_OBJECT ? new Set() : null };
      frames.push(frame);
      if (!scan.closes(frame.array)) {
        enterMember(scan, frame, path);
        continue;
      }
      frames.pop();
    } else {
      scan.skipValue(path);
    }
    if (!nextMember(scan, frames, path)) {
      scan.end(path);
      return;
    }
  }
}

/** After a value: closes every container it was the last member of, and steps onto the next member (false: the document ended). */
function nextMember(scan: Scanner, frames: Frame[], path: (string | number)[]): boolean {
  while (frames.length > 0) {
    const frame = frames.at(-1)!;
    path.pop();
    frame.count++;
    if (scan.closes(frame.array)) {
      frames.pop();
      continue;
    }
    scan.expect(COMMA, path, `expected ',' or '${frame.array ? "]" : "}"}'`);
    enterMember(scan, frame, path);
    return true;
  }
  return false;
}

/** Steps onto the next member of an open container: its index, or its key and colon. */
function enterMember(scan: Scanner, frame: Frame, path: (string | number)[]): void {
  if (frame.array) {
    path.push(frame.count);
    return;
  }
  scan.space();
  const key = scan.key(path);
  if (frame.keys!.has(key)) scan.fail(path, `the key ${JSON.stringify(key)} is given twice in one object`);
  frame.keys!.add(key);
  path.push(key);
  scan.space();
  scan.expect(COLON, path, "expected ':' after a key");
}

