import type { Deps } from "../../deps";
import { AppError, ERROR_STATUS, type ErrorCode } from "../../errors";
import { startOperation } from "../mind-operations";
import { type ArchiveBody, IMPORT_INLINE_MAX_BYTES } from "./archive-parts";
import type { ImportFormat } from "./formats";
import { type ArchiveImport, acceptImport, getImport } from "./imports";

export type { ArchiveImport } from "./imports";
export { IMPORT_INLINE_MAX_BYTES };

/** How long a request waits for a small archive to be written before answering with the import. */
const INLINE_WAIT_MS = 15_000;

/**
 * Restores an archive (JSONL, as a stream or in memory), or a peer's file in `format` (a mem0
 * export, a Letta Agent File) converted into one, into an empty mind of the account. The
 * request stores the file; the mind's operations object checks it as a whole, stages its rows and
 * writes them in slices. A file up to IMPORT_INLINE_MAX_BYTES is checked by the request too
 * (a bad line or field is a 400 naming it) and written before this answers (state `done`, or an
 * error as the write met it); a larger one answers at once with the import `queued`, to be
 * followed with `getImport` (a bad line then fails the import with the same error). An import
 * that fails leaves the mind as it was.
 */
export async function importMind(
  deps: Pick<Deps, "directory" | "shards" | "clock" | "mindOperations">, accountId: string, mindId: string, body: ArchiveBody | string, format: ImportFormat = "archive",
): Promise<ArchiveImport> {
  const archive = typeof body === "string" ? [new TextEncoder().encode(body)] : body;
  const { archiveImport: staged, bytes } = await acceptImport(deps, accountId, mindId, archive, format);
  const ref = { kind: "import", mindId, importId: staged.id } as const;
  // Refused (too many operations wait), the stored import is still answered, so the caller can
  // follow it: following it, or the daily retention, hands it to the object later.
  const object = await startOperation(deps, ref).catch((error: unknown) => {
    if (error instanceof AppError && error.code === "conflict") return null;
    throw error;
  });
  if (object === null || bytes > IMPORT_INLINE_MAX_BYTES) return staged;
  await object.runFor(ref, INLINE_WAIT_MS);
  const archiveImport = await getImport(deps, accountId, mindId, staged.id);
  if (archiveImport.state === "failed" && archiveImport.error) throw new AppError(errorCode(archiveImport.error.code), archiveImport.error.message);
  return archiveImport;
}

const errorCode = (code: string): ErrorCode => (code in ERROR_STATUS ? (code as ErrorCode) : "internal");
