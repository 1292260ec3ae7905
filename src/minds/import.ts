import type { Deps } from "../deps";
import { AppError, type ErrorCode, ERROR_STATUS } from "../errors";
import { getImportJob, stageImport, type ImportJob } from "./import-jobs";
import { importObject, type ImportObject } from "./import-object";

export type { ImportCounts, ImportJob } from "./import-jobs";

/** Domain dependencies plus the namespace of import objects, which write imports in the background. */
export interface ImportDeps extends Deps {
  importObjects: DurableObjectNamespace<ImportObject>;
}

/** An archive up to this size is written while its request waits; a larger one in the background. */
export const IMPORT_INLINE_MAX_BYTES = 1024 * 1024;
/** How long a request waits for a small archive to be written before answering with the job. */
const INLINE_WAIT_MS = 15_000;

/**
 * Restores an archive (JSONL bytes) into an empty mind of the account. The request checks the
 * archive as a whole (a bad line is a 400 naming it) and stages its rows; the mind's import
 * object writes them in slices. An archive up to IMPORT_INLINE_MAX_BYTES is written before this
 * answers (state `done`, or an error as the write met it); a larger one answers at once with the
 * job `queued`, to be followed with `getImportJob`. A job that fails leaves the mind as it was.
 */
export async function importMind(deps: ImportDeps, accountId: string, mindId: string, body: Uint8Array | string): Promise<ImportJob> {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const staged = await stageImport(deps, accountId, mindId, bytes);
  const object = importObject(deps.importObjects, staged.id);
  await object.begin(mindId, staged.id);
  if (bytes.length > IMPORT_INLINE_MAX_BYTES) return staged;
  await object.runFor(INLINE_WAIT_MS);
  const job = await getImportJob(deps, accountId, mindId, staged.id);
  if (job.state === "failed" && job.error) throw new AppError(errorCode(job.error.code), job.error.message);
  return job;
}

const errorCode = (code: string): ErrorCode => (code in ERROR_STATUS ? (code as ErrorCode) : "internal");
