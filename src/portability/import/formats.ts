import type { ImportFormat } from "../../db/schema";
import { AppError, invalid } from "../../errors";
import { ARCHIVE_FORMAT } from "../archive";
import { type CheckedArchive, checkArchive } from "./check";
import { fromLetta } from "./from-letta";
import { fromMem0 } from "./from-mem0";
import type { Pause } from "./pace";
import { notThisFormat } from "./peer-lines";

// What an import reads: edgemind's own archive (JSON lines, the default), a mem0 export or a
// Letta Agent File (each one JSON document). A request says which by its Content-Type or by
// ?format=; a peer's file is stored as it came and converted into the archive's lines where the
// archive would be read, so it goes through the one import.

export type { ImportFormat };
export const IMPORT_FORMATS = ["archive", "mem0", "letta"] as const satisfies readonly ImportFormat[];

/** The media type that names each format on its own. */
export const FORMAT_MEDIA_TYPES: Record<ImportFormat, string> = {
  archive: "application/x-ndjson",
  mem0: "application/vnd.mem0+json",
  letta: "application/vnd.letta.agent-file+json",
};

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/;

/**
 * The format of an import's body: a media type of FORMAT_MEDIA_TYPES names it, `asked` (?format=)
 * names it, or, neither saying, the archive. Plain JSON is a peer's file and must say whose; a
 * media type and ?format= that disagree are refused, naming what was expected.
 */
export function importFormatOf(contentType: string | null | undefined, asked: string | null | undefined): ImportFormat {
  if (asked !== undefined && asked !== null && !(IMPORT_FORMATS as readonly string[]).includes(asked)) {
    throw invalid(`format: expected one of ${IMPORT_FORMATS.join(", ")}`);
  }
  const essence = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  const named = IMPORT_FORMATS.find((format) => FORMAT_MEDIA_TYPES[format] === essence);
  if (named && asked && asked !== named) {
    throw invalid(`format: the Content-Type ${essence} says ${named}, but format=${asked}: send one, or both the same`);
  }
  const format = (asked as ImportFormat | null | undefined) ?? named;
  if (format) return format;
  if (JSON_TYPE.test(essence)) {
    throw invalid(
      `a JSON body is a mem0 export or a Letta Agent File: say which with ?format=mem0 or ?format=letta (or the Content-Type ${FORMAT_MEDIA_TYPES.mem0} or ${FORMAT_MEDIA_TYPES.letta}); ` +
        `edgemind's own archive is JSON lines (${FORMAT_MEDIA_TYPES.archive})`,
    );
  }
  return "archive";
}

/**
 * The archive an import's file is (the file itself, or the lines a peer's file converts to), checked
 * as a whole. A peer's file is refused naming its own fields; should its lines still fail a check
 * of the archive's, the refusal says they came from that file.
 */
export async function checkImportFile(format: ImportFormat, file: Uint8Array, now: string, pause?: Pause): Promise<{ bytes: Uint8Array; archive: CheckedArchive }> {
  const bytes = await archiveOf(format, file, now, pause);
  try {
    return { bytes, archive: await checkArchive(bytes, pause) };
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== "invalid_request") throw err;
    if (format !== "archive") throw invalid(`the ${format} file converts to edgemind's archive, which is refused: ${err.message}`);
    // A first line that is no archive's header: the file is something else, sent without saying what.
    throw err.message.startsWith("line 1:") && !startsAsArchive(file) ? notThisFormat(err, ARCHIVE_EXPECTED) : err;
  }
}

const ARCHIVE_EXPECTED =
  `expected edgemind's archive: JSON lines, the first its header {"type":"header","format":"${ARCHIVE_FORMAT}",…}; ` +
  `a mem0 export or a Letta Agent File is said with ?format=mem0 or ?format=letta, or the Content-Type ${FORMAT_MEDIA_TYPES.mem0} or ${FORMAT_MEDIA_TYPES.letta}`;

/** Whether the file's first line is an archive's header (read only when that line was refused). */
function startsAsArchive(file: Uint8Array): boolean {
  const end = file.indexOf(0x0a);
  try {
    const first: unknown = JSON.parse(new TextDecoder().decode(end < 0 ? file : file.subarray(0, end)));
    return typeof first === "object" && first !== null && "type" in first && first.type === "header" && "format" in first && first.format === ARCHIVE_FORMAT;
  } catch {
    return false;
  }
}

function archiveOf(format: ImportFormat, file: Uint8Array, now: string, pause?: Pause): Promise<Uint8Array> {
  switch (format) {
    case "archive":
      return Promise.resolve(file);
    case "mem0":
      return fromMem0(file, now, pause);
    case "letta":
      return fromLetta(file, now, pause);
  }
}
