import { createDb, type Db } from "./client";

/** A D1 bookmark: the position of one database's history (`xxxxxxxx-xxxxxxxx-xxxxxxxx-` and 32 hex digits). */
export const D1_BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

/** A database read through one D1 session (Sessions API), and the newest bookmark it has seen. */
export interface ReplicaReads {
  db: Db;
  bookmark(): string | null;
}

/** Where a session starts: a bookmark, the primary, or any replica (reads a few seconds stale are harmless). */
export type SessionStart = string | "first-primary" | "first-unconstrained";

/**
 * `db` through one D1 session (Sessions API) starting at `start`: a replica at least as new as
 * a bookmark serves it. Every statement of the session sees the ones before it, its writes
 * included (they go to the primary), and its bookmark after a write covers the write. drizzle's
 * D1 driver calls only `prepare` and `batch`, which a session has, so the session serves as its client.
 */
export function readFromReplicas(db: Db, start: SessionStart): ReplicaReads {
  const session = db.$client.withSession(start);
  return { db: createDb(session as unknown as D1Database), bookmark: () => session.getBookmark() };
}

/** The newer of two bookmarks of one database (they sort by age as strings), or whichever there is. */
export function newerBookmark(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return a >= b ? a : b;
}
