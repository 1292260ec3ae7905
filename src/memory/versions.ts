import { and, asc, desc, eq, getTableColumns, gte, inArray, lt, ne, not, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../db/client";
import { type MemoryRow, memories } from "../db/schema";
import { notFound } from "../errors";
import type { MindContext } from "../tenancy/mind-context";
import type { Scope } from "../tenancy/principal";
import { inScope } from "./filters";
import { replacedHistory } from "./history";
import type { Change } from "./outbox";
import { type Memory, REPLACED_KEY_MARK, toMemory } from "./rows";
import { isCurrent, statedAt, validUntilReplacedBy } from "./time";

// How a statement is replaced, in the write's own batch: its row stays, valid until the
// replacing statement holds, superseded_by naming it, its stored key made its own (rows.ts).
// A write with the same key keeps the memory's id for the new statement and the old one as a
// past version under a new id; a write naming `supersedes` replaces other memories whole.

/** The mark a replaced row's key takes in SQL: its key, '#' and its id. */
const replacedKey = (id: SQLWrapper | string) => sql<string>`${memories.key} || ${REPLACED_KEY_MARK} || ${id}`;

/** Every column of memories, in the table's order, as a row copied from `memories` with these changes. */
function copiedRow(changes: Partial<Record<keyof MemoryRow, SQL>>) {
  return Object.fromEntries(
    Object.entries(getTableColumns(memories)).map(([property, column]) => [
      property,
      (changes[property as keyof typeof changes] ?? sql`${column}`).as(column.name),
    ]),
  ) as { [P in keyof MemoryRow]: SQL.Aliased };
}

/**
 * Keeps the current row matching `current` as a past version under `pastId` when the write
 * changes its content: valid until `from` (the new statement's), replaced by the row itself,
 * which keeps its id for the new statement. Goes before the write in its batch.
 */
export function keepPastVersion(shard: Db, current: SQL | undefined, write: { pastId: string; content: string; from: string }) {
  const row = copiedRow({
    id: sql`${write.pastId}`,
    key: replacedKey(write.pastId),
    validUntil: validUntilReplacedBy(write.from),
    supersededBy: sql`${memories.id}`,
  });
  return shard.insert(memories).select(shard.select(row).from(memories).where(and(current, ne(memories.content, write.content))));
}

/**
 * The current memories a write's `supersedes` names, read before the write: the one with that
 * id the scope may read, or those with that key in the writer's namespace. The written
 * memory's own (category, key) is left out: the write replaces it anyway. None is not_found.
 */
export async function supersededTargets(
  { shard, scope }: Pick<MindContext, "shard" | "scope">,
  ref: string,
  written: { category: string; key: string } | { id: string },
): Promise<string[]> {
  const itself =
    "id" in written
      ? eq(memories.id, written.id)
      : and(eq(memories.agent, scope.agent), eq(memories.category, written.category), eq(memories.key, written.key));
  const rows = await shard
    .select({ id: memories.id, itself: sql<number>`${itself}` })
    .from(memories)
    .where(
      and(
        inScope(scope),
        isCurrent,
        or(eq(memories.id, ref), and(eq(memories.key, ref), eq(memories.agent, scope.agentFilter ?? scope.agent))),
      ),
    )
    .limit(TARGETS_MAX);
  if (rows.length === 0) throw notFound(`the memory to supersede (${ref})`);
  return rows.filter((r) => !r.itself).map((r) => r.id);
}

/** Memories one `supersedes` replaces at most (one key in each of the eight categories). */
const TARGETS_MAX = 8;

/**
 * Marks the target memories replaced by the memory `by` selects (after the write in its batch):
 * valid until `from`, their keys made their own; each with a history entry. None: no statement.
 */
export function supersedeStatements(shard: Db, scope: Scope, targets: string[], replacement: { by: SQL; from: string; actor: string; at: string }): BatchItem<"sqlite">[] {
  if (targets.length === 0) return [];
  const picked = and(inArray(memories.id, targets), inScope(scope), isCurrent, not(sql`${memories.id} = ${replacement.by}`));
  return [
    shard
      .update(memories)
      .set({ supersededBy: sql`${replacement.by}`, validUntil: validUntilReplacedBy(replacement.from), key: replacedKey(memories.id) })
      .where(picked),
    replacedHistory(shard, and(inArray(memories.id, targets), sql`${memories.supersededBy} = ${replacement.by}`)!, replacement),
  ];
}

/** The outbox's description of a supersession: the rows replaced (ids or SQL, as the batch leaves them) and what replaced them. */
export const supersession = (ids: (string | SQL)[], by: string | SQL): Change => ({ row: "memory", what: "superseded", ids, by });

/** Past versions a memory keeps at most: a write adding one more deletes the oldest. */
export const VERSIONS_KEPT = 100;

/**
 * A memory's past versions: rows it replaced that held its own key (not other memories it
 * superseded). A key range, so the unique index on (mind_id, agent, category, key) finds them:
 * every stored key of its versions starts with `key#`, and no other key sorts between `key#`
 * and `key$` (keys hold only a-z, 0-9 and '_').
 */
export function pastVersionsOf(mindId: string, memory: { agent: string; category: string; key: string }, by: string | SQL): SQL {
  return and(
    eq(memories.mindId, mindId),
    eq(memories.agent, memory.agent),
    eq(memories.category, memory.category),
    gte(memories.key, `${memory.key}${REPLACED_KEY_MARK}`),
    lt(memories.key, `${memory.key}$`),
    sql`${memories.supersededBy} = ${by}`,
  )!;
}

/** Deletes a memory's oldest past versions beyond VERSIONS_KEPT (after the write that added one, in its batch). */
export function prunePastVersions(shard: Db, mindId: string, memory: { agent: string; category: string; key: string }, by: SQL) {
  const oldest = sql`select rowid from ${memories} where ${pastVersionsOf(mindId, memory, by)}
    order by ${memories.validUntil} desc, ${memories.id} desc limit -1 offset ${VERSIONS_KEPT}`;
  return shard.delete(memories).where(sql`${memories}.rowid in (${oldest})`);
}

/** How many versions a timeline lists at most. */
export const TIMELINE_MAX = 100;

/**
 * A memory's timeline: it, what it replaced, what those replaced (any depth), and what replaced
 * it, newest statement first; each marked by its validity. Two statements whatever the depth.
 */
export async function memoryTimeline({ shard, scope }: Pick<MindContext, "shard" | "scope">, id: string): Promise<Memory[]> {
  const chain = sql`with recursive earlier(id, depth) as (
      select ${id}, 0
      union select m.id, earlier.depth + 1 from memories m join earlier on m.superseded_by = earlier.id
        where m.mind_id = ${scope.mindId} and earlier.depth < ${TIMELINE_MAX}),
    later(id, depth) as (
      select ${id}, 0
      union select m.superseded_by, later.depth + 1 from memories m join later on m.id = later.id
        where m.mind_id = ${scope.mindId} and m.superseded_by is not null and later.depth < ${TIMELINE_MAX})
    select id from earlier union select id from later`;
  const rows = await shard
    .select()
    .from(memories)
    .where(and(inScope(scope), sql`${memories.id} in (${chain})`))
    .orderBy(desc(statedAt), asc(memories.supersededBy), desc(memories.id))
    .limit(TIMELINE_MAX);
  if (!rows.some((r) => r.id === id)) throw notFound("memory");
  return rows.map(toMemory);
}
