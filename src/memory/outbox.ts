import type { SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../db/client";
import type { InShard } from "../deps";
import { logFailure } from "../observe/log";
import type { Mind } from "../tenancy/minds";
import { type BudgetOf, EMBED_BATCH, embedPending, markForEmbedding, missingMarks, removeGoneVectors } from "./vectors";

// After a write. Every write of memories and notes, and every import when it finishes, describes
// its change here once; each reader of changes says what must follow it: statements that end
// the write's own batch (they land with the change or not at all) and work deferred past the
// answer. A new reader is one more entry in READERS, and no writer changes. memory_history
// stays the memories' own change log, written by each write beside its change.

/**
 * What happened to the rows: "stored" is created or updated in place, as the batch decides;
 * "superseded", replaced by a later statement (the rows stay, as past versions: memory/versions.ts).
 */
export type Happened = "created" | "stored" | "updated" | "deleted" | "verified" | "superseded" | "finished";

/** One change a write makes in one mind: the kind of row, which rows, what happened. */
export interface Change {
  row: "memory" | "note" | "import";
  what: Happened;
  /**
   * The rows, each by id or by SQL selecting ids, as the end of the write's batch finds them
   * (an import names itself: its rows are the mind's). A deletion names its rows by id.
   */
  ids: (string | SQL)[];
  /** The fields an update gave (absent: any may have changed). */
  fields?: readonly string[];
  /** A supersession's replacing memory, by id or by SQL selecting it (its rows' superseded_by). */
  by?: string | SQL;
}

/**
 * What the seam reads of a writer's context: the mind (with its settings when the writer read
 * them, so embedding does not read its budget again), its shard, the clock, the vector ports and
 * where deferred work goes. A mind context is one.
 */
export type WriterContext = Pick<InShard, "directory" | "shard" | "clock" | "semantic" | "defer"> & {
  mind: Pick<Mind, "id"> & Partial<Pick<Mind, "settings">>;
};

/** One reader of changes: statements for the write's batch, and work once the batch committed (null: none). */
interface ChangeReader {
  statements(context: WriterContext, change: Change): BatchItem<"sqlite">[];
  afterwards(context: WriterContext, change: Change, ids: string[]): (() => Promise<unknown>) | null;
}

/** Whether a change leaves a row whose embedded text (key, content, tags) may differ. */
const changesText = (change: Change) =>
  ["created", "stored"].includes(change.what) || (change.what === "updated" && (change.fields?.some((f) => f === "content" || f === "tags") ?? true));

/**
 * Vectors follow their rows (src/memory/vectors.ts): a row written with new text is marked in the
 * batch and embedded after the answer (only its own rows: others pending are another write's or
 * the hourly job's), a deleted row's vector is removed, an import's rows are marked and embedded.
 */
const VECTORS: ChangeReader = {
  statements(context, change) {
    if (!context.semantic) return [];
    if (change.row === "import") return [...missingMarks(context, context.mind.id)];
    if (!changesText(change) || change.ids.length === 0) return [];
    return [markForEmbedding(context, change.row, context.mind.id, change.ids)];
  },
  afterwards(context, change, ids) {
    const mind = context.mind;
    if (!context.semantic) return null;
    if (change.row === "import") {
      return () =>
        Promise.all([
          removeGoneVectors(context, mind.id).catch((err) => logFailure("embedding_failed", err)),
          embedPending(context, mind.id).catch((err) => logFailure("import_embedding_failed", err, { mind: mind.id })),
        ]);
    }
    if (change.what === "deleted") return () => removeGoneVectors(context, mind.id).catch((err) => logFailure("embedding_failed", err));
    if (!changesText(change) || ids.length === 0) return null;
    const budget = mind.settings === undefined ? mind.id : (mind as BudgetOf);
    return () => embedPending(context, budget, EMBED_BATCH, ids).catch((err) => logFailure("embedding_failed", err));
  },
};

/** Every reader of changes, in the order their statements end a batch. */
const READERS: ChangeReader[] = [VECTORS];

/** The seam of one write: `statements` end its batch; `landed` follows the committed change. */
export interface AfterWrite {
  statements: BatchItem<"sqlite">[];
  /**
   * Once the batch committed: starts each reader's deferred work, given the rows' ids as the batch
   * left them (by default the ids the change named). Without a place to defer it (a queue unit, a
   * job), the work is left to the hourly job.
   */
  landed(ids?: string[]): void;
}

/** Runs a write of one statement and the seam's statements in one batch (the write alone when they are none): the write's result. */
export async function writeWith<T>(shard: Db, write: BatchItem<"sqlite"> & PromiseLike<T>, after: AfterWrite): Promise<T> {
  if (after.statements.length === 0) return await write;
  const [result] = await shard.batch([write, ...after.statements]);
  return result as T;
}

/** Describes a write's change to every reader of changes: their statements, and what follows once it landed. */
export function afterWrite(context: WriterContext, change: Change): AfterWrite {
  return {
    statements: READERS.flatMap((reader) => reader.statements(context, change)),
    landed(ids = change.ids.filter((id): id is string => typeof id === "string")) {
      for (const reader of READERS) {
        const work = reader.afterwards(context, change, ids);
        if (work && context.defer) context.defer(work());
      }
    },
  };
}
