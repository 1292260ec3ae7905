import { and, eq, gt, isNull, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { memories } from "../db/schema";
import type { Scope } from "../tenancy/principal";
import { normalizeTag } from "./normalize";

/** A table whose rows belong to a mind and an agent namespace: memories, notes, chats, sessions. */
export interface NamespacedTable {
  mindId: SQLiteColumn;
  agent: SQLiteColumn;
}

/** Rows the scope may read: its mind, and its agent namespace when it is limited to one. */
export function inScope(scope: Pick<Scope, "mindId" | "agentFilter">, table: NamespacedTable = memories): SQL {
  return scope.agentFilter === null
    ? eq(table.mindId, scope.mindId)
    : and(eq(table.mindId, scope.mindId), eq(table.agent, scope.agentFilter))!;
}

export const notExpired = (nowIso: string) => or(isNull(memories.expiresAt), gt(memories.expiresAt, nowIso))!;

/** A tag is matched whole, case-insensitively, against the stored (lower-cased) tags. */
export const hasTag = (tag: string) =>
  sql`exists (select 1 from json_each(${memories.tags}) where json_each.value = ${normalizeTag(tag)})`;

/** critical 3 … low 0, for ordering in SQL. */
export const priorityRank = sql<number>`(case ${memories.priority} when 'critical' then 3 when 'high' then 2 when 'normal' then 1 else 0 end)`;
