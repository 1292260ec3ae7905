import { describeZodError, invalid, tooLarge } from "../../errors";
import { loneSurrogateIn, loneSurrogateRefused } from "../../json-text";
import { type ArchiveLine, archiveLineSchema, IMPORT_MAX_BYTES, IMPORT_MAX_LINE_BYTES, IMPORT_MAX_LINES } from "../archive";
import { repeatedKeyIn } from "./archive-json";

// Reading an archive's bytes line by line, within bounds: the body's size, the number of
// lines and each line's size are checked before the text is decoded.

/** Where one non-empty line of the archive sits, and its 1-based number. */
export interface LineRef {
  number: number;
  start: number;
  end: number;
}

const NEWLINE = 0x0a;

export const archiveTooLarge = () => tooLarge(`an archive is at most ${IMPORT_MAX_BYTES} bytes (${IMPORT_MAX_BYTES / 1024 / 1024} MB)`);

/** Every non-empty line of the archive, bounded in count and size. */
export function* archiveLineRefs(bytes: Uint8Array): Generator<LineRef> {
  if (bytes.byteLength > IMPORT_MAX_BYTES) throw archiveTooLarge();
  let start = 0;
  let number = 0;
  while (start < bytes.byteLength) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end < 0) end = bytes.byteLength;
    number++;
    if (number > IMPORT_MAX_LINES) throw tooLarge(`an archive has at most ${IMPORT_MAX_LINES} lines`);
    if (end - start > IMPORT_MAX_LINE_BYTES) throw tooLarge(`line ${number}: a line is at most ${IMPORT_MAX_LINE_BYTES} bytes`);
    if (!isBlank(bytes, start, end)) yield { number, start, end };
    start = end + 1;
  }
}

function isBlank(bytes: Uint8Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const b = bytes[i];
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  }
  return true;
}

const decoder = new TextDecoder();

/**
 * One line decoded and checked against the archive schema; a bad line is a 400 naming it.
 * `strict` (the check of a whole archive, before anything is staged) also refuses a key given
 * twice in one object and a lone surrogate in any text.
 */
export function parseLine(bytes: Uint8Array, ref: LineRef, strict = false): ArchiveLine {
  const text = decoder.decode(bytes.subarray(ref.start, ref.end));
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid(`line ${ref.number}: not valid JSON`);
  }
  if (strict) {
    const repeated = repeatedKeyIn(text);
    if (repeated !== null) throw invalid(`line ${ref.number}: the key ${JSON.stringify(repeated)} is given twice in one object`);
    const lone = loneSurrogateIn(text, value);
    if (lone !== null) throw loneSurrogateRefused(lone, `line ${ref.number}`);
  }
  const parsed = archiveLineSchema.safeParse(value);
  if (!parsed.success) throw invalid(`line ${ref.number}: ${describeZodError(parsed.error)}`);
  return parsed.data;
}
