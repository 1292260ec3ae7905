import { and, asc, count, desc, eq, gt, lte, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { isoNow } from "../clock";
import type { Db } from "../db/client";
import { type FieldChanges, memories, memoryHistory } from "../db/schema";
import { forbidden, notFound } from "../errors";
import { newId } from "../ids";
import type { MindContext } from "../tenancy/mind-context";
import { actorOf, isPerson, type Scope } from "../tenancy/principal";
import { storedBytes, writeWithinQuota } from "../tenancy/quotas";
import type { MemoryInput, MemoryPatch } from "./fields";
import { hasTag, inScope, notExpired, priorityRank } from "./filters";
import { normalizeTag, toIndexText } from "./normalize";
import { afterWrite, writeWith } from "./outbox";
import { boundContext, type Category, givenColumns, type Memory, type Source, toMemory, toMemoryWithContext } from "./rows";

export interface MemoryListFilter {
  category?: Category;
  tag?: string;
  source?: Source;
  verified?: boolean;
  limit: number;
  offset: number;
}

/** Who wrote it decides provenance: a human's write is verified, an agent's never is. */
function provenance(scope: Scope, confidence: number | undefined) {
  const human = isPerson(scope.principal);
  return {
    source: (human ? "user" : "agent") as Source,
    verified: human,
    confidence: confidence ?? (human ? 1.0 : 0.7),
  };
}

const normalizeTags = (tags: string[]) => [...new Set(tags.map(normalizeTag))];
const tagsIndexText = (mindId: string, tags: string[]) => toIndexText(mindId, tags.join(" "));

/** A memory's context as stored, with the copy the search index holds. */
const contextColumns = (mindId: string, context: string | undefined) => {
  const bounded = boundContext(context);
  return { context: bounded, searchContext: toIndexText(mindId, bounded) };
};

/** The normalised copies of a memory's key, content, tags and context that the mind's search index holds. */
export const memorySearchColumns = (mindId: string, key: string, content: string, tags: string[], context?: string) => ({
  searchKey: toIndexText(mindId, key.replaceAll("_", " ")),
  searchContent: toIndexText(mindId, content),
  searchTags: tagsIndexText(mindId, tags),
  ...contextColumns(mindId, context),
});

/**
 * Creates the memory, or updates it in place when its (category, key) already exists in the
 * scope's mind and agent namespace. The change and its history row are written in one batch.
 */
export async function storeMemory(
  mindContext: MindContext,
  input: MemoryInput,
): Promise<{ memory: Memory; created: boolean }> {
  const { scope, shard } = mindContext;
  const now = isoNow(mindContext.clock);
  const id = newId("mem");
  const tags = input.tags === undefined ? undefined : normalizeTags(input.tags);
  const sameKey = sameKeyOf(scope, input);
  const change = { actor: actorOf(scope.principal), content: input.content, at: now };
  const need = { memories: 1, bytes: storedBytes(input.key, input.content, JSON.stringify(tags ?? [])) };
  // Read only after a refusal: an update in place adds no memory. In the batch, only a new row has the new id.
  const replaces = async () => (await shard.select({ id: memories.id }).from(memories).where(sameKey).get()) !== undefined;
  const inBatch = sql`exists (select 1 from ${memories} where ${memories.id} = ${id})`;
  const after = afterWrite(mindContext, { row: "memory", what: "stored", ids: [sql`select ${memories.id} from ${memories} where ${sameKey}`] });
  const written = { ...provenance(scope, input.confidence), tags, priority: input.priority, expires_at: input.expires_at };
  const [, rows] = await writeWithinQuota(mindContext, need, (guard) => shard.batch([
    historyFromTable(shard, "update", { ...change, changes: changesFromTable(written) }, sameKey),
    upsertMemory(shard, scope, input, { id, tags, now }),
    historyFromTable(shard, "create", change, and(eq(memories.id, id), eq(memories.mindId, scope.mindId))),
    guard,
    ...after.statements,
  ]), { inBatch, replaces });
  const row = rows[0]!;
  after.landed([row.id]);
  return { memory: toMemoryWithContext(row, input.context !== undefined), created: row.id === id };
}

/** The memory of the scope's mind and agent namespace with the input's (category, key). */
const sameKeyOf = (scope: Scope, input: MemoryInput) =>
  and(
    eq(memories.mindId, scope.mindId),
    eq(memories.agent, scope.agent),
    eq(memories.category, input.category),
    eq(memories.key, input.key),
  );

/**
 * A history row written from the table itself in the same batch, so it sees exactly the row
 * before (an update) or after (a creation) the upsert, whatever races with it.
 */
function historyFromTable(
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

/**
 * Inserts the memory under `id`, or, when its (category, key) exists, changes the stored row in
 * place: content and provenance always, tags and context only when given.
 */
function upsertMemory(shard: Db, scope: Scope, input: MemoryInput, row: { id: string; tags: string[] | undefined; now: string }) {
  const { id, tags, now } = row;
  const { source, verified, confidence } = provenance(scope, input.confidence);
  return shard
    .insert(memories)
    .values({
      id,
      mindId: scope.mindId,
      agent: scope.agent,
      category: input.category,
      key: input.key,
      content: input.content,
      tags: tags ?? [],
      priority: "normal",
      source,
      verified,
      confidence,
      expiresAt: null,
      createdAt: now,
      updatedAt: now,
      ...givenColumns(input),
      ...memorySearchColumns(scope.mindId, input.key, input.content, tags ?? [], input.context),
    })
    .onConflictDoUpdate({
      target: [memories.mindId, memories.agent, memories.category, memories.key],
      set: {
        content: input.content,
        searchContent: toIndexText(scope.mindId, input.content),
        source,
        verified,
        confidence,
        updatedAt: now,
        ...(tags !== undefined && { tags, searchTags: tagsIndexText(scope.mindId, tags) }),
        ...givenColumns(input),
        ...(input.context !== undefined && contextColumns(scope.mindId, input.context)),
      },
    })
    .returning();
}

/** One memory of the scope; its context too when `withContext`. */
export async function getMemory({ shard, scope }: Pick<MindContext, "scope" | "shard">, id: string, withContext = false): Promise<Memory> {
  const row = await shard.select().from(memories).where(and(eq(memories.id, id), inScope(scope))).get();
  if (!row) throw notFound("memory");
  return toMemoryWithContext(row, withContext);
}

/** Changes the given fields; the writer's provenance replaces the old one. */
export async function updateMemory(mindContext: MindContext, id: string, patch: MemoryPatch): Promise<Memory> {
  const { scope } = mindContext;
  const { shard, clock } = mindContext;
  const current = await getMemory(mindContext, id);
  const now = isoNow(clock);
  const tags = patch.tags === undefined ? undefined : normalizeTags(patch.tags);
  const content = patch.content ?? current.content;
  const need = { bytes: storedBytes(content, tags && JSON.stringify(tags)) - storedBytes(current.content) };
  const written = provenance(scope, patch.confidence);
  const changes = fieldChanges(current, {
    priority: patch.priority ?? current.priority,
    tags: tags ?? current.tags,
    expires_at: patch.expires_at === undefined ? current.expires_at : patch.expires_at,
    ...written,
  });
  const given = Object.keys(patch).filter((field) => patch[field as keyof MemoryPatch] !== undefined);
  const after = afterWrite(mindContext, { row: "memory", what: "updated", ids: [id], fields: given });
  const [rows] = await writeWithinQuota(mindContext, need, (guard) => shard.batch([
    shard
      .update(memories)
      .set({
        ...written,
        content,
        searchContent: toIndexText(scope.mindId, content),
        updatedAt: now,
        ...(tags !== undefined && { tags, searchTags: tagsIndexText(scope.mindId, tags) }),
        ...givenColumns(patch),
        ...(patch.context !== undefined && contextColumns(scope.mindId, patch.context)),
      })
      .where(and(eq(memories.id, id), inScope(scope)))
      .returning(),
    shard.insert(memoryHistory).values(historyEntry(scope, id, "update", current.content, content, now, changes)),
    guard,
    ...after.statements,
  ]));
  if (!rows[0]) throw notFound("memory");
  after.landed();
  return toMemoryWithContext(rows[0], patch.context !== undefined);
}

export async function deleteMemory(mindContext: MindContext, id: string): Promise<void> {
  const { scope } = mindContext;
  const { shard, clock } = mindContext;
  const current = await getMemory(mindContext, id);
  const after = afterWrite(mindContext, { row: "memory", what: "deleted", ids: [id] });
  const deleted = await writeWith(
    shard,
    shard.delete(memories).where(and(eq(memories.id, id), inScope(scope))).returning({ id: memories.id }),
    after,
    [shard.insert(memoryHistory).values(historyEntry(scope, id, "delete", current.content, null, isoNow(clock)))],
  );
  if (deleted.length === 0) throw notFound("memory");
  after.landed();
}

/** Marks a memory as checked by a human. Agents can never do this. */
export async function verifyMemory(mindContext: MindContext, id: string): Promise<Memory> {
  const { scope } = mindContext;
  if (!isPerson(scope.principal)) throw forbidden("only a human can verify a memory");
  const { shard, clock } = mindContext;
  const current = await getMemory(mindContext, id);
  const now = isoNow(clock);
  const after = afterWrite(mindContext, { row: "memory", what: "verified", ids: [id] });
  const [rows] = await shard.batch([
    shard
      .update(memories)
      .set({ verified: true, updatedAt: now })
      .where(and(eq(memories.id, id), inScope(scope)))
      .returning(),
    shard.insert(memoryHistory).values(historyEntry(scope, id, "verify", current.content, current.content, now)),
    ...after.statements,
  ]);
  if (!rows[0]) throw notFound("memory");
  after.landed();
  return toMemory(rows[0]);
}

function historyEntry(
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
function changesFromTable(after: Partial<Tracked>): SQL {
  const members = TRACKED.filter((f) => after[f] !== undefined).map((f) => {
    const { column, json, stored } = TRACKED_IN_SQL[f];
    const differs = sql`${column} is not ${stored(after[f])}`;
    return sql`${f}, json(iif(${differs}, json_array(${json}, json(${JSON.stringify(after[f])})), null))`;
  });
  return sql`nullif(json_patch('{}', json_object(${sql.join(members, sql`, `)})), '{}')`;
}

/** Each tracked field whose value differs, as [before, after]; null when none does. */
function fieldChanges(before: Tracked, after: Tracked): FieldChanges | null {
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
  if (scope.agentFilter !== null) await getMemory(mindContext, id);
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

export async function listMemories(
  { shard, scope }: Pick<MindContext, "scope" | "shard">,
  filter: MemoryListFilter,
): Promise<{ memories: Memory[]; total: number }> {
  const where = and(
    inScope(scope),
    filter.category && eq(memories.category, filter.category),
    filter.source && eq(memories.source, filter.source),
    filter.verified !== undefined ? eq(memories.verified, filter.verified) : undefined,
    filter.tag !== undefined ? hasTag(filter.tag) : undefined,
  );
  const [rows, totals] = await shard.batch([
    shard
      .select()
      .from(memories)
      .where(where)
      .orderBy(desc(memories.updatedAt), desc(memories.id))
      .limit(filter.limit)
      .offset(filter.offset),
    shard.select({ n: count() }).from(memories).where(where),
  ]);
  return { memories: rows.map(toMemory), total: totals[0]?.n ?? 0 };
}

/** Unexpired memories carrying the tag, most important first. */
export async function memoriesByTag({ shard, clock, scope }: Pick<MindContext, "clock" | "scope" | "shard">, tag: string, limit: number): Promise<Memory[]> {
  const rows = await shard
    .select()
    .from(memories)
    .where(and(inScope(scope), hasTag(tag), notExpired(isoNow(clock))))
    .orderBy(desc(priorityRank), desc(memories.updatedAt))
    .limit(limit);
  return rows.map(toMemory);
}

/** Memories that expire between now and now + withinMs, soonest first. */
export async function expiringMemories(
  { shard, clock, scope }: Pick<MindContext, "clock" | "scope" | "shard">,
  withinMs: number,
  limit: number,
): Promise<Memory[]> {
  const now = clock.now();
  const until = new Date(now.getTime() + withinMs).toISOString();
  const rows = await shard
    .select()
    .from(memories)
    .where(and(inScope(scope), gt(memories.expiresAt, now.toISOString()), lte(memories.expiresAt, until)))
    .orderBy(asc(memories.expiresAt))
    .limit(limit);
  return rows.map(toMemory);
}

/**
 * Deletes the memory a person or an agent named: `id` is tried as an id, then as a key (what a
 * person types, what older clients send); `key` is only ever a key, every memory of the scope's
 * namespace with it (of one category when `category` is given). Returns what went; nothing
 * found is not_found.
 */
export async function forgetMemory(mindContext: MindContext, target: { id: string } | { key: string; category?: Category }): Promise<Memory[]> {
  const { scope } = mindContext;
  const byId = "id" in target ? await mindContext.shard.select().from(memories).where(and(eq(memories.id, target.id), inScope(scope))).get() : undefined;
  const key = "id" in target ? target.id : target.key;
  const category = "category" in target ? target.category : undefined;
  const rows = byId
    ? [byId]
    : await mindContext.shard
        .select()
        .from(memories)
        .where(
          and(
            eq(memories.key, key),
            eq(memories.mindId, scope.mindId),
            eq(memories.agent, scope.agentFilter ?? scope.agent),
            category ? eq(memories.category, category) : undefined,
          ),
        );
  if (rows.length === 0) throw notFound("memory");
  for (const row of rows) await deleteMemory(mindContext, row.id);
  return rows.map(toMemory);
}
