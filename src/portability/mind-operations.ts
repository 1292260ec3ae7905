import type { Deps } from "../deps";
import { conflict } from "../errors";
import { beginErasure, readErasure } from "./erase";
import { type ArchiveImport, getImport, IMPORT_STALLED_MS, isImportUnfinished } from "./import/imports";
import { countMindRows } from "./move/shard-rows";
import type { OperationRef } from "./operations";

/** A request's part of an operation: the directory and the mind's database, the clock, and the operations object to hand it to. */
type HandOverDeps = Pick<Deps, "directory" | "shards" | "clock" | "mindOperations"> & Partial<Pick<Deps, "queue" | "defer">>;

// The requests' side of the mind's operations object: a request does the quick checks and the first
// step itself (so its errors keep their codes), then hands the operation to the object.

/** The mind's operations object: one per mind, wherever it is asked for from. */
export function mindOperationsObject(namespace: Env["MIND_OPERATIONS"], mindId: string) {
  return namespace.get(namespace.idFromName(mindId));
}

/** Hands the operation to the mind's operations object (or wakes it there); 409 when too many wait already. */
export async function startOperation(deps: Pick<Deps, "mindOperations">, ref: OperationRef) {
  const object = mindOperationsObject(deps.mindOperations, ref.mindId);
  if (!(await object.start(ref))) throw conflict(`the mind has too many operations waiting: try the ${ref.kind} again later`);
  return object;
}

/**
 * The account's import, as it stands (`getImport`). Following an import that stopped moving
 * (its object was lost, or deleted by a deploy) hands it to the mind's operations object again, which
 * goes on from the import's progress; the daily retention does the same for imports nobody follows.
 */
export async function followImport(deps: HandOverDeps, accountId: string, mindId: string, importId: string): Promise<ArchiveImport> {
  const archiveImport = await getImport(deps, accountId, mindId, importId);
  const stalled = isImportUnfinished(archiveImport.state) && Date.parse(archiveImport.updated_at) < deps.clock.now().getTime() - IMPORT_STALLED_MS;
  if (stalled) await startOperation(deps, { kind: "import", mindId, importId }).catch(() => undefined);
  return archiveImport;
}

/** How long a request waits for an erasure to finish before answering. */
const ERASE_WAIT_MS = 15_000;

/** An erasure's receipt: what the mind held when it was fenced, and what is left while it goes on. */
export interface ErasureReceipt {
  deleted: Record<string, number>;
  finished: boolean;
  /** Rows of the mind still on its database, per table, while the erasure goes on. */
  left?: Record<string, number>;
}

/**
 * Erases the mind (erase.ts): the request marks it erasing and records its counts, the mind's operations
 * object erases the rest in bounded slices, this request waiting for its first run. Answers the
 * counts, finished or with what is left (the object goes on in the background, and asking again
 * answers the progress); a finished erasure asked again answers its counts.
 */
export async function eraseMind(deps: HandOverDeps, accountId: string, mindId: string): Promise<ErasureReceipt> {
  const erasure = await beginErasure(deps, accountId, mindId);
  if (erasure.finishedAt !== null) return { deleted: erasure.counts, finished: true };
  const ref: OperationRef = { kind: "erase", mindId };
  // A failed run is retried by the object; the receipt says what is left either way.
  await (await startOperation(deps, ref)).runFor(ref, ERASE_WAIT_MS).catch(() => undefined);
  const now = await readErasure(deps, mindId);
  if (!now || now.finishedAt !== null) return { deleted: erasure.counts, finished: true };
  const rows = await countMindRows(deps.shards.db(now.shard), mindId);
  return { deleted: erasure.counts, finished: false, left: Object.fromEntries(Object.entries(rows).filter(([, n]) => n > 0)) };
}
