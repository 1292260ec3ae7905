import { and, eq, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { type MindRow, minds } from "../db/schema";
import { DIRECTORY } from "../db/shards";
import type { Deps } from "../deps";
import { changing, forgetMind } from "./directory-cache";

// A mind's row lives in the directory, and for a mind on another shard as a copy there that the
// shard's own queries read (quotas, retention, history caps). Every change of it (its name,
// locale, retention and settings, its shard, a move's or an erasure's marks) goes through here:
// the statement is built by `mindRowUpdate` and run inside `changingMind`, after which this
// isolate forgets the mind. Every other isolate trusts what it read for DIRECTORY_TTL_MS at most
// (tenancy/directory-cache.ts); a quota is not left to that bound: each write checks it against
// the row stored on the mind's shard, in its own batch (tenancy/quotas.ts).

/** The columns of a mind's row a change may set. */
export type MindRowChange = Partial<Omit<MindRow, "id" | "accountId" | "createdAt">>;

/** The statement changing a mind's row on one database (the directory, or the copy on its shard), under any further conditions. */
export function mindRowUpdate(db: Db, mindId: string, change: MindRowChange, ...conditions: (SQL | undefined)[]) {
  return db
    .update(minds)
    .set(change)
    .where(and(eq(minds.id, mindId), ...conditions));
}

/**
 * Runs a change of a mind's row (on any database, in one statement, a batch or several), then
 * forgets the mind in this isolate, even when the change failed or its answer was lost.
 */
export function changingMind<T>(mindId: string, change: () => Promise<T>): Promise<T> {
  return changing(() => forgetMind(mindId), change);
}

/**
 * Sets a mind's own fields where they are kept: the copy on its shard first (the shard's queries
 * read them there), then the directory's row, under `condition`. Answers the directory's row, or
 * undefined when it matched nothing.
 */
export async function setMindFields(
  deps: Pick<Deps, "directory" | "shards">,
  mind: { id: string; shard: string },
  fields: MindRowChange,
  condition?: SQL,
): Promise<MindRow | undefined> {
  return changingMind(mind.id, async () => {
    if (mind.shard !== DIRECTORY) await mindRowUpdate(deps.shards.db(mind.shard), mind.id, fields);
    const [row] = await mindRowUpdate(deps.directory, mind.id, fields, condition).returning();
    return row;
  });
}
