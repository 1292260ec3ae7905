import type { Deps } from "../deps";
import type { RetryPolicy } from "../retry";
import { eraseSlice, readErasure } from "./erase";
import { abandonImport, isImportUnfinished, runImport } from "./import/imports";
import type { Pause } from "./import/pace";
import { advanceMove, isMoveRunning, moveWaitsUntil, recordMoveFailure } from "./move/move";

// The long operations on a mind, as its operations object runs them: each is the domain's own steps
// (import/imports.ts, move/move.ts, erase.ts), every one safe to repeat, with the numbers of its retries.

/** An operation the mind's operations object runs, as its storage names it. */
export type OperationRef =
  | { kind: "import"; mindId: string; importId: string }
  | { kind: "move"; mindId: string }
  | { kind: "erase"; mindId: string };

export type OperationKind = OperationRef["kind"];

/** What a run leaves: nothing (false), work to go on with now (true), or work not due before a time (ms since the epoch). */
export type Left = boolean | { at: number };

/** What the operations read: the directory, the shards and the clock; an erasure forgets sessions and vectors, an import embeds its rows. */
export type OperationDeps = Pick<Deps, "directory" | "shards" | "clock" | "semantic" | "defer" | "sessionObjects">;

export interface Operation<R extends OperationRef> {
  /** Failed runs in a row: the waits between them, and when it is given up. */
  policy: RetryPolicy;
  /** Whether its writes are embedded at once (otherwise by the hourly job). */
  semantic: boolean;
  /** Slices one run goes through at most, from an alarm and from a request (each costs a few D1 calls). */
  slicesPerRun: { alarm: number; request: number };
  /** Runs slices while `more()` allows; answers what is left. Throws on a failure, and runs again from its progress. */
  run(deps: OperationDeps, ref: R, more: () => boolean, pause: Pause): Promise<Left>;
  /** Records a failure where its owner follows it. */
  noteFailure?(deps: OperationDeps, ref: R, error: unknown, failures: number): Promise<void>;
  /** After the policy's last try: ends it cleanly; answers whether work is left (an undo). */
  giveUp?(deps: OperationDeps, ref: R): Promise<boolean>;
}

/** Slices of an erasure one run of the operations object goes through at most. */
export const ERASE_SLICES_PER_RUN = 25;

type Operations = { [K in OperationKind]: Operation<Extract<OperationRef, { kind: K }>> };

/**
 * import: check, stage and write an archive (import/imports.ts). Given up after 8 failed runs in a
 * row, waiting 1, 2, 4, … 64 s between them: the import is then undone, the mind left as it was.
 *
 * move: the steps of a move between shards (move/move.ts), never given up (an operator abandons it),
 * retried after 2, 4, 8 s … at most 5 minutes; its failures show on GET /shards/moves/:id. After
 * its switch it waits out the directory cache's bound, due then rather than run again meanwhile.
 *
 * erase: finish a mind's erasure after its request marked it (erase.ts), a bounded number of
 * slices a run, each run going on where the last stopped; never given up: the mind answers as
 * missing meanwhile, and the daily retention hands a stalled one back to the object.
 */
export const OPERATIONS: Operations = {
  import: {
    policy: { firstMs: 1_000, maxMs: 64_000, attempts: 8 },
    semantic: true,
    slicesPerRun: { alarm: 10, request: Infinity },
    async run(deps, ref, more, pause) {
      const archiveImport = await runImport(deps, ref.mindId, ref.importId, more, pause);
      return archiveImport !== null && isImportUnfinished(archiveImport.state);
    },
    async giveUp(deps, ref) {
      const undone = await abandonImport(deps, ref.mindId, ref.importId);
      return undone?.state === "undoing";
    },
  },
  move: {
    policy: { firstMs: 2_000, maxMs: 5 * 60_000 },
    // A move copies rows and leaves their vectors as they are: it needs no embedder.
    semantic: false,
    slicesPerRun: { alarm: Infinity, request: Infinity },
    async run(deps, { mindId }, more, pause) {
      // The first step runs whatever the budget, as a move always did; steps yield between them.
      for (let state = await advanceMove(deps, mindId); ; state = await advanceMove(deps, mindId)) {
        if (!isMoveRunning(state)) return false;
        const at = state === "switched" ? await moveWaitsUntil(deps, mindId) : null;
        if (at !== null) return { at };
        if (!more()) return true;
        await pause();
      }
    },
    noteFailure: (deps, { mindId }, error, failures) => recordMoveFailure(deps, mindId, error, failures),
  },
  erase: {
    policy: { firstMs: 2_000, maxMs: 5 * 60_000 },
    semantic: true,
    // A slice is at most 20 object calls and about 15 D1 statements (erase.ts): 25 stay well within one invocation's limits.
    slicesPerRun: { alarm: ERASE_SLICES_PER_RUN, request: ERASE_SLICES_PER_RUN },
    async run(deps, { mindId }, more) {
      const erasure = await readErasure(deps, mindId);
      if (!erasure || erasure.finishedAt !== null) return false;
      while (more()) {
        const left = await eraseSlice(deps, erasure);
        if (left !== true) return left;
      }
      return true;
    },
  },
};

/** The operation of a reference, typed for it. */
export const operationOf = (ref: OperationRef) => OPERATIONS[ref.kind] as Operation<OperationRef>;

/** One text per operation: the same operation asked twice is one. */
export const operationKey = (ref: OperationRef) => (ref.kind === "import" ? `import ${ref.mindId} ${ref.importId}` : `${ref.kind} ${ref.mindId}`);
