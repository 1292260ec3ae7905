import { invalid } from "../../errors";
import { loneSurrogateIn } from "../../json-text";
import { repeatedKeyIn } from "./archive-json";

// The tokens of a JSON file read as bytes (json-scan.ts walks the document with them): each
// checked as JSON.parse would check it, a value stepped over without being built, and a refusal
// naming the line, the column and the path. Raw newlines occur only between tokens, so lines are
// counted there.

export type JsonPath = readonly (string | number)[];

/** The deepest a peer's file may nest (a picked value is walked again where it is used). */
export const JSON_MAX_DEPTH = 64;

export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
export const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;
const NEWLINE = 0x0a;
const ESCAPED = new Set([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));
const LITERALS = ["true", "false", "null"].map((word) => new TextEncoder().encode(word));

/** A path as a reader writes it: `results[3].memory`, `agents[0]["odd key"]`. */
export function formatPath(path: JsonPath): string {
  let text = "";
  for (const step of path) {
    if (typeof step === "number") text += `[${step}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(step)) text += text ? `.${step}` : step;
    else text += `[${JSON.stringify(step)}]`;
  }
  return text;
}

const decoder = new TextDecoder();

/** A JSON file's bytes, read token by token from `pos`. */
export class Scanner {
  pos = 0;
  line = 1;
  private lineStart = 0;
  private readonly depth = new Uint8Array(JSON_MAX_DEPTH);

  constructor(
    private readonly bytes: Uint8Array,
    private readonly what: string,
  ) {}

  fail(path: JsonPath, problem: string): never {
    const at = path.length > 0 ? ` (at ${formatPath(path)})` : "";
    const ended = this.pos >= this.bytes.length && this.pos > 0 ? "the file ends before its JSON does" : problem;
    throw invalid(`${this.what}: line ${this.line}, column ${this.pos - this.lineStart + 1}${at}: ${ended}`);
  }

  skipBom(): void {
    const b = this.bytes;
    if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) this.pos = this.lineStart = 3;
  }

  /** Skips whitespace, counting lines. */
  space(): void {
    const b = this.bytes;
    for (let c = b[this.pos]; c === 0x20 || c === 0x09 || c === 0x0d || c === NEWLINE; c = b[++this.pos]) {
      if (c === NEWLINE) {
        this.line++;
        this.lineStart = this.pos + 1;
      }
    }
  }

  /** The byte a value starts with; the end of the text is an error. */
  peek(path: JsonPath): number {
    if (this.pos >= this.bytes.length) this.fail(path, "the file is empty");
    return this.bytes[this.pos]!;
  }

  expect(byte: number, path: JsonPath, problem: string): void {
    if (this.bytes[this.pos] !== byte) this.fail(path, problem);
    this.pos++;
  }

  /** Whether the container closes here (then stepped past). */
  closes(array: boolean): boolean {
    this.space();
    if (this.bytes[this.pos] !== (array ? CLOSE_ARRAY : CLOSE_OBJECT)) return false;
    this.pos++;
    return true;
  }

  /** Nothing but whitespace may follow the document. */
  end(path: JsonPath): void {
    this.space();
    if (this.pos < this.bytes.length) this.fail(path, "more text after the JSON value (one JSON document was expected)");
  }

  /** Reads an object's key. */
  key(path: JsonPath): string {
    if (this.bytes[this.pos] !== QUOTE) this.fail(path, "expected a key in double quotes");
    const start = this.pos;
    this.skipString(path);
    return JSON.parse(decoder.decode(this.bytes.subarray(start, this.pos))) as string;
  }

  /** Steps past one value, checking it, without building it. */
  skipValue(path: JsonPath): void {
    const b = this.bytes;
    let depth = 0;
    for (;;) {
      this.space();
      const c = this.peek(path);
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (depth >= JSON_MAX_DEPTH) this.fail(path, `nested deeper than ${JSON_MAX_DEPTH} levels`);
        this.depth[depth++] = c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
        this.pos++;
        this.space();
        if (b[this.pos] === this.depth[depth - 1]) {
          this.pos++;
          depth--;
        } else {
          if (c === OPEN_OBJECT) this.memberKey(path);
          continue;
        }
      } else if (c === QUOTE) {
        this.skipString(path);
      } else {
        this.skipScalar(path);
      }
      // A value ended: close what it ended, then go on to the next member.
      for (;;) {
        if (depth === 0) return;
        this.space();
        const close = this.depth[depth - 1]!;
        if (b[this.pos] === close) {
          this.pos++;
          depth--;
          continue;
        }
        this.expect(COMMA, path, `expected ',' or '${close === CLOSE_ARRAY ? "]" : "}"}'`);
        if (close === CLOSE_OBJECT) this.memberKey(path);
        break;
      }
    }
  }

  /** A key and its colon, inside a value being skipped. */
  private memberKey(path: JsonPath): void {
    this.space();
    if (this.bytes[this.pos] !== QUOTE) this.fail(path, "expected a key in double quotes");
    this.skipString(path);
    this.space();
    this.expect(COLON, path, "expected ':' after a key");
  }

  private skipString(path: JsonPath): void {
    const b = this.bytes;
    let p = this.pos + 1;
    for (;;) {
      const c = b[p];
      if (c === undefined) {
        this.pos = p;
        this.fail(path, "a string is not closed");
      }
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        const escaped = b[p + 1];
        if (escaped === 0x75) {
          for (let i = 2; i < 6; i++) {
            const h = b[p + i] ?? 0;
            const hex = (h >= 0x30 && h <= 0x39) || (h >= 0x41 && h <= 0x46) || (h >= 0x61 && h <= 0x66);
            if (!hex) {
              this.pos = p;
              this.fail(path, "a \\u escape needs four hexadecimal digits");
            }
          }
          p += 6;
          continue;
        }
        if (escaped === undefined || !ESCAPED.has(escaped)) {
          this.pos = p;
          this.fail(path, "an unknown escape in a string");
        }
        p += 2;
        continue;
      }
      if (c < 0x20) {
        this.pos = p;
        this.fail(path, "a control character inside a string (it must be escaped)");
      }
      p++;
    }
    this.pos = p + 1;
  }

  private skipScalar(path: JsonPath): void {
    const b = this.bytes;
    const literal = LITERALS.find((word) => word.every((byte, i) => b[this.pos + i] === byte));
    if (literal) this.pos += literal.length;
    else if (!this.skipNumber()) this.fail(path, `unexpected ${describeByte(b[this.pos]!)}`);
    const after = b[this.pos];
    if (after !== undefined && !" \t\r\n,]}".includes(String.fromCharCode(after))) this.fail(path, `unexpected ${describeByte(after)}`);
  }

  /** Steps past a number as JSON writes one: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?. */
  private skipNumber(): boolean {
    const b = this.bytes;
    const digit = (at: number) => b[at] !== undefined && b[at]! >= 0x30 && b[at]! <= 0x39;
    let p = this.pos;
    if (b[p] === 0x2d) p++;
    if (b[p] === 0x30) p++;
    else if (digit(p)) while (digit(p)) p++;
    else return false;
    if (b[p] === 0x2e) {
      if (!digit(++p)) return false;
      while (digit(p)) p++;
    }
    if (b[p] === 0x65 || b[p] === 0x45) {
      p++;
      if (b[p] === 0x2b || b[p] === 0x2d) p++;
      if (!digit(p)) return false;
      while (digit(p)) p++;
    }
    this.pos = p;
    return true;
  }

  /** The value between two offsets, checked already, parsed; a key given twice or a lone surrogate in it is refused. */
  parse(start: number, end: number, path: JsonPath): unknown {
    const text = decoder.decode(this.bytes.subarray(start, end));
    const value = JSON.parse(text) as unknown;
    const where = formatPath(path);
    const repeated = repeatedKeyIn(text);
    if (repeated !== null) throw invalid(`${this.what}: ${where}: the key ${JSON.stringify(repeated)} is given twice in one object`);
    const lone = loneSurrogateIn(text, value);
    if (lone !== null) {
      const inner = lone.startsWith("[") || !where ? lone : `.${lone}`;
      throw invalid(`${this.what}: ${where}${inner} holds a lone surrogate (an unpaired \\uD800-\\uDFFF escape), which is not text`);
    }
    return value;
  }
}

function describeByte(byte: number): string {
  return byte >= 0x21 && byte <= 0x7e ? `'${String.fromCharCode(byte)}'` : `byte 0x${byte.toString(16).padStart(2, "0")}`;
}
