import { and, asc, eq, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { type FieldChanges, memories, memoryHistory } from "../db/schema";
import { notFound } from "../errors";
import type { MindContext } from "../tenancy/mind-context";
import { actorOf, type Scope } from "../tenancy/principal";
import { inScope } from "./filters";
import type { Memory } from "./rows";

// memory_history: the memories' own change log, one row per change, written by each write in
// its own batch and kept after the memory is deleted. A change of content records the old and
// new text; a change of other fields, each field's value before and after.

/**
 * A history row written from the table itself in the same batch, so it sees exactly the row
 * before (an update) or after (a creation) the upsert, whatever races with it.
 */
export function historyFromTable(
  shard: Db,
  action: "update" | "create",
  change: { actor: string; content: string; at: string; changes?: SQL },
  where: SQL | undefined,
) {
  return shard.insert(memoryHistory).select(
    shard
      .select({
        id: sql<number>`null`.as("id"),
        mindId: memories.mindId,
        memoryId: memories.id,
        action: sql<string>`${action}`.as("action"),
        actor: sql<string>`${change.actor}`.as("actor"),
        oldContent: action === "update" ? memories.content : sql<null>`null`.as("old_content"),
        newContent: sql<string>`${change.content}`.as("new_content"),
        at: sql<string>`${change.at}`.as("at"),
        changes: sql<string | null>`${change.changes ?? sql`null`}`.as("changes"),
      })
      .from(memories)
      .where(where),
  );
}

export function historyEntry(
  scope: Scope,
  memoryId: string,
  action: "update" | "delete" | "verify",
  oldContent: string,
  newContent: string | null,
  at: string,
  changes: FieldChanges | null = null,
) {
  return { mindId: scope.mindId, memoryId, action, actor: actorOf(scope.principal), oldContent, newContent, at, changes };
}

/** The fields besides content a history entry records the change of. */
const TRACKED = ["priority", "tags", "expires_at", "confidence", "source", "verified"] as const;
type Tracked = Pick<Memory, (typeof TRACKED)[number]>;

/** The stored form of each tracked field, read in SQL as the JSON value the API shows. */
const TRACKED_IN_SQL: Record<keyof Tracked, { column: SQLWrapper; json: SQL; stored: (value: unknown) => unknown }> = {
  priority: { column: memories.priority, json: sql`json_quote(${memories.priority})`, stored: (v) => v },
  tags: { column: memories.tags, json: sql`json(${memories.tags})`, stored: (v) => JSON.stringify(v) },
  expires_at: { column: memories.expiresAt, json: sql`json_quote(${memories.expiresAt})`, stored: (v) => v },
  confidence: { column: memories.confidence, json: sql`json_quote(${memories.confidence})`, stored: (v) => v },
  source: { column: memories.source, json: sql`json_quote(${memories.source})`, stored: (v) => v },
  verified: { column: memories.verified, json: sql`json(iif(${memories.verified}, 'true', 'false'))`, stored: (v) => (v ? 1 : 0) },
};

/**
 * What `fieldChanges` records, computed in SQL against the stored row an upsert replaces (the
 * fields it leaves undefined keep their value): null members fall out of the JSON merge patch.
 */
export function changesFromTable(after: Partial<Tracked>): SQL {
  const members = TRACKED.filter((f) => after[f] !== undefined).map((f) => {
    const { column, json, stored } = TRACKED_IN_SQL[f];
    const differs = sql`${column} is not ${stored(after[f])}`;
    return sql`${f}, json(iif(${differs}, json_array(${json}, json(${JSON.stringify(after[f])})), null))`;
  });
  return sql`nullif(json_patch('{}', json_object(${sql.join(members, sql`, `)})), '{}')`;
}

/** Each tracked field whose value differs, as [before, after]; null when none does. */
export function fieldChanges(before: Tracked, after: Tracked): FieldChanges | null {
  const changed = TRACKED.filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]));
  return changed.length === 0 ? null : Object.fromEntries(changed.map((f) => [f, [before[f], after[f]]]));
}

export interface HistoryEntry {
  action: string;
  actor: string;
  old_content: string | null;
  new_content: string | null;
  /** The other fields the change touched, each [before, after]; null: none (or not recorded). */
  changes: FieldChanges | null;
  at: string;
}

/** Every recorded change of a memory, oldest first; kept after the memory is deleted. */
export async function memoryHistoryOf(mindContext: Pick<MindContext, "scope" | "shard">, id: string): Promise<HistoryEntry[]> {
  const { scope } = mindContext;
  // History has no namespace of its own: a namespaced reader sees it only while the memory is its own.
  if (scope.agentFilter !== null) {
    const own = await mindContext.shard.select({ id: memories.id }).from(memories).where(and(eq(memories.id, id), inScope(scope))).get();
    if (!own) throw notFound("memory");
  }
  const rows = await mindContext.shard
    .select()
    .from(memoryHistory)
    .where(and(eq(memoryHistory.mindId, scope.mindId), eq(memoryHistory.memoryId, id)))
    .orderBy(asc(memoryHistory.id));
  if (rows.length === 0) throw notFound("memory");
  return rows.map((r) => ({
    action: r.action,
    actor: r.actor,
    old_content: r.oldContent,
    new_content: r.newContent,
    changes: r.changes,
    at: r.at,
  }));
}

/** A "replaced" history entry for each row `where` selects, naming what replaced it. */
export function replacedHistory(shard: Db, where: SQL, entry: { actor: string; at: string }) {
  return shard.insert(memoryHistory).select(
    shard
      .select({
        id: sql<null>`null`.as("id"),
        mindId: memories.mindId,
        memoryId: memories.id,
        action: sql<string>`'replaced'`.as("action"),
        actor: sql<string>`${entry.actor}`.as("actor"),
        oldContent: memories.content,
        newContent: sql<null>`null`.as("new_content"),
        at: sql<string>`${entry.at}`.as("at"),
        changes: sql<string>`json_object('superseded_by', json_array(null, ${memories.supersededBy}))`.as("changes"),
      })
      .from(memories)
      .where(where),
  );
}
