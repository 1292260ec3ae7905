import type { SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { isoNow } from "../clock";
import type { Db } from "../db/client";
import type { InShard } from "../deps";
import { eventStatements, hasEvent } from "../events/emit";
import { wakeDelivery } from "../events/wake";
import { logFailure } from "../observe/log";
import type { Mind } from "../tenancy/minds";
import { type BudgetOf, EMBED_BATCH, embedPending, markForEmbedding, missingMarks, removeGoneVectors } from "./vectors";

// After a write. Every write of memories and notes, of cold memory, the opening and completion of
// a session, a mind's erasure, and every import when it finishes, describes its change here once;
// each reader of changes says what must follow it: statements in the write's own batch (they
// land with the change or not at all: at its end, or at its start to read rows the change
// deletes) and work deferred past the answer. A new reader is one more entry in READERS, and no
// writer changes. memory_history stays the memories' own change log, written by each write.

/**
 * What happened to the rows: "stored" is created or updated in place, as the batch decides;
 * "superseded", replaced by a later statement (the rows stay, as past versions: memory/versions.ts).
 */
export type Happened = "created" | "stored" | "updated" | "deleted" | "verified" | "superseded" | "done" | "erased" | "finished";

/** One change a write makes in one mind: the kind of row, which rows, what happened. */
export interface Change {
  row: "memory" | "note" | "import" | "cold" | "session" | "mind";
  what: Happened;
  /**
   * The rows, each by id or by SQL selecting ids, as the end of the write's batch finds them
   * (an import names itself: its rows are the mind's; a cold memory its write by write id; a mind
   * itself). A deletion names its rows by id.
   */
  ids: (string | SQL)[];
  /** The fields an update gave (absent: any may have changed). */
  fields?: readonly string[];
  /** A supersession's replacing memory, by id or by SQL selecting it (its rows' superseded_by). */
  by?: string | SQL;
  /** Who made it, as history records it (actorOf): a cold memory's author. */
  actor?: string;
}

/**
 * What the seam reads of a writer's context: the mind (with its settings when the writer read
 * them, so embedding does not read its budget again), its shard, the clock, the vector ports and
 * where deferred work goes. A mind context is one.
 */
export type WriterContext = Pick<InShard, "directory" | "shard" | "clock" | "semantic" | "defer"> & Partial<Pick<InShard, "queue">> & {
  /** The mind: its settings, its database's name and whether it has webhooks, when the writer read them. */
  mind: Pick<Mind, "id"> & Partial<Pick<Mind, "settings" | "shard" | "webhooks">>;
};

/** One reader of changes: statements for the write's batch (`first` open it), and work once the batch committed (null: none). */
interface ChangeReader {
  first?(context: WriterContext, change: Change): BatchItem<"sqlite">[];
  statements(context: WriterContext, change: Change): BatchItem<"sqlite">[];
  afterwards(context: WriterContext, change: Change, ids: string[]): (() => Promise<unknown>) | null;
}

/** The kinds of row that have vectors. */
const hasVector = (change: Change): change is Change & { row: "memory" | "note" } => change.row === "memory" || change.row === "note";

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
    if (!hasVector(change) || !changesText(change) || change.ids.length === 0) return [];
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
    if (!hasVector(change)) return null;
    if (change.what === "deleted") return () => removeGoneVectors(context, mind.id).catch((err) => logFailure("embedding_failed", err));
    if (!changesText(change) || ids.length === 0) return null;
    const budget = mind.settings === undefined ? mind.id : (mind as BudgetOf);
    return () => embedPending(context, budget, EMBED_BATCH, ids).catch((err) => logFailure("embedding_failed", err));
  },
};

/**
 * Events follow every change a webhook can be told of (src/events/): a row per change in the
 * mind's stream, numbered in the batch, read from the rows as it leaves them (a deletion's before
 * it, at the batch's start); after the answer a mind with webhooks wakes their delivery.
 */
const EVENTS: ChangeReader = {
  first: (context, change) => (change.what === "deleted" ? eventStatements(context.shard, context.mind.id, isoNow(context.clock), change) : []),
  statements: (context, change) => (change.what === "deleted" ? [] : eventStatements(context.shard, context.mind.id, isoNow(context.clock), change)),
  afterwards(context, change) {
    const { id, shard, webhooks } = context.mind;
    const queue = context.queue;
    if (!hasEvent(change) || webhooks === false || shard === undefined || !queue) return null;
    return () => wakeDelivery(queue, { id, shard });
  },
};

/** Every reader of changes, in the order their statements end a batch. */
const READERS: ChangeReader[] = [VECTORS, EVENTS];

/** The seam of one write: `first` open its batch, `statements` end it; `landed` follows the committed change. */
export interface AfterWrite {
  first: BatchItem<"sqlite">[];
  statements: BatchItem<"sqlite">[];
  /**
   * Once the batch committed: starts each reader's deferred work, given the rows' ids as the batch
   * left them (by default the ids the change named). Without a place to defer it (a job's own
   * loop), the work is left to the hourly job; a queue unit's ends with its message.
   */
  landed(ids?: string[]): void;
}

/**
 * Runs a write (one statement, and the statements `alongside` it) with the seam's statements in one
 * batch (the write alone when there is nothing else): the write's result.
 */
export async function writeWith<T>(shard: Db, write: BatchItem<"sqlite"> & PromiseLike<T>, after: AfterWrite, alongside: BatchItem<"sqlite">[] = []): Promise<T> {
  const rest = [...alongside, ...after.statements];
  if (after.first.length + rest.length === 0) return await write;
  const results = await shard.batch([...after.first, write, ...rest] as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return results[after.first.length] as T;
}

/** Describes a write's change to every reader of changes: their statements, and what follows once it landed. */
export function afterWrite(context: WriterContext, change: Change): AfterWrite {
  return {
    first: READERS.flatMap((reader) => reader.first?.(context, change) ?? []),
    statements: READERS.flatMap((reader) => reader.statements(context, change)),
    landed(ids = change.ids.filter((id): id is string => typeof id === "string")) {
      for (const reader of READERS) {
        const work = reader.afterwards(context, change, ids);
        if (work && context.defer) context.defer(work());
      }
    },
  };
}
