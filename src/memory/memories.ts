import { and, asc, count, desc, eq, gt, inArray, lte, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { alias } from "drizzle-orm/sqlite-core";
import { isoNow } from "../clock";
import type { Db } from "../db/client";
import { type MemoryRow, memories, memoryHistory } from "../db/schema";
import { conflict, forbidden, notFound } from "../errors";
import { newId } from "../ids";
import type { MindContext } from "../tenancy/mind-context";
import { actorOf, isPerson, type Scope } from "../tenancy/principal";
import { type QuotaNeed, storedBytes, writeWithinQuota } from "../tenancy/quotas";
import type { MemoryInput, MemoryPatch } from "./fields";
import { hasTag, inScope, notExpired, priorityRank } from "./filters";
import { changesFromTable, fieldChanges, historyEntry, historyFromTable, replacedHistory } from "./history";
import { normalizeTag, toIndexText } from "./normalize";
import { afterWrite, writeWith } from "./outbox";
import { boundContext, type Category, givenColumns, type Memory, REPLACED_KEY_MARK, type Source, toMemory, toMemoryWithContext } from "./rows";
import { expiryTime, inTime, isCurrent, statementTime, type TimeView } from "./time";
import { keepPastVersion, prunePastVersions, supersededTargets, supersedeStatements, supersession, VERSIONS_KEPT } from "./versions";

export interface MemoryListFilter extends TimeView {
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
 * Creates the memory, or, when its (category, key) exists in the scope's mind and agent
 * namespace, makes the write its newest statement: the memory keeps its id, and a changed
 * content's old statement stays as a past version (valid until the new one). `supersedes`
 * replaces other memories too. The change, its history and every supersession are one batch.
 */
export async function storeMemory(
  mindContext: MindContext,
  input: MemoryInput,
): Promise<{ memory: Memory; created: boolean }> {
  const write = await planMemoryWrite(mindContext, input);
  const results = await writeWithinQuota(mindContext, write.need, (guard) => mindContext.shard.batch([...write.statements, guard] as [BatchItem<"sqlite">]), write.added);
  const row = (results[write.rowAt] as MemoryRow[])[0]!;
  write.landed(row.id);
  return { memory: toMemoryWithContext(row, input.context !== undefined), created: row.id === write.newId };
}

/** A memory's write, planned: the statements of its batch (a quota guard goes after them) and what follows once it landed. */
export interface MemoryWrite {
  statements: BatchItem<"sqlite">[];
  /** The statement whose result is the stored row. */
  rowAt: number;
  /** The id the memory has if the write creates it. */
  newId: string;
  need: QuotaNeed;
  /** For the quota guard: whether the batch added a memory, and (after a refusal) whether it existed. */
  added: { inBatch: SQL; replaces: () => Promise<boolean> };
  /** Once the batch committed, with the stored row's id. */
  landed(id: string): void;
}

/** The statements of storeMemory's batch, for it or for another write's batch (an extraction's). Reads only to resolve `supersedes`. */
export async function planMemoryWrite(mindContext: MindContext, input: MemoryInput): Promise<MemoryWrite> {
  const { scope, shard } = mindContext;
  const now = isoNow(mindContext.clock);
  const observed = statementTime(input.observed_at, now);
  const [id, pastId] = [newId("mem"), newId("mem")];
  const targets = input.supersedes === undefined ? [] : await supersededTargets(mindContext, input.supersedes, input);
  const tags = input.tags === undefined ? undefined : normalizeTags(input.tags);
  const sameKey = sameKeyOf(scope, input);
  const actor = actorOf(scope.principal);
  const change = { actor, content: input.content, at: now };
  const written = sql`(select ${memories.id} from ${memories} where ${sameKey})`;
  const after = afterWrite(mindContext, { row: "memory", what: "stored", ids: [sql`select ${memories.id} from ${memories} where ${sameKey}`] });
  const replaced = afterWrite(mindContext, supersession([sql`select ${memories.id} from ${memories} where ${memories.supersededBy} = ${written} and ${memories.id} in ${[pastId, ...targets]}`], written));
  const provenanceWritten = { ...provenance(scope, input.confidence), tags, priority: input.priority, expires_at: input.expires_at };
  return {
    statements: [
      historyFromTable(shard, "update", { ...change, changes: changesFromTable(provenanceWritten) }, sameKey),
      keepPastVersion(shard, sameKey, { pastId, content: input.content, from: observed }),
      upsertMemory(shard, scope, input, { id, tags, now, observed }),
      prunePastVersions(shard, scope.mindId, { agent: scope.agent, category: input.category, key: input.key }, written),
      historyFromTable(shard, "create", change, and(eq(memories.id, id), eq(memories.mindId, scope.mindId))),
      replacedHistory(shard, and(eq(memories.id, pastId), eq(memories.mindId, scope.mindId))!, change),
      ...supersedeStatements(shard, scope, targets, { by: written, from: observed, actor, at: now }),
      ...after.statements,
      ...replaced.statements,
    ],
    rowAt: 2,
    newId: id,
    need: { memories: 1, bytes: storedBytes(input.key, input.content, JSON.stringify(tags ?? [])) },
    added: {
      // Read only after a refusal: an update in place adds no memory. In the batch, only a new row has the new id.
      inBatch: sql`exists (select 1 from ${memories} where ${memories.id} = ${id})`,
      replaces: async () => (await shard.select({ id: memories.id }).from(memories).where(sameKey).get()) !== undefined,
    },
    landed(rowId) {
      after.landed([rowId]);
      replaced.landed();
    },
  };
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
 * Inserts the memory under `id`, or, when its (category, key) exists, changes the stored row in
 * place: content and provenance always, tags and context only when given. A changed content is
 * a new statement, stated at `observed` (its old one was kept by keepPastVersion); the same
 * content keeps when it was stated unless the write says.
 */
function upsertMemory(shard: Db, scope: Scope, input: MemoryInput, row: { id: string; tags: string[] | undefined; now: string; observed: string }) {
  const { id, tags, now, observed } = row;
  const { source, verified, confidence } = provenance(scope, input.confidence);
  const sameContent = sql`${memories.content} = ${input.content}`;
  const stated = (kept: SQLWrapper) => sql<string>`iif(${sameContent}, ${input.observed_at ?? kept}, ${observed})`;
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
      observedAt: observed,
      validFrom: observed,
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
        observedAt: stated(memories.observedAt),
        validFrom: stated(memories.validFrom),
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

/**
 * Changes the given fields of a current memory in place (a correction: its history keeps the
 * diff); the writer's provenance replaces the old one. `supersedes` replaces other memories
 * with it. A past version is not changed: conflict.
 */
export async function updateMemory(mindContext: MindContext, id: string, patch: MemoryPatch): Promise<Memory> {
  const { scope } = mindContext;
  const { shard, clock } = mindContext;
  const current = await getMemory(mindContext, id);
  if (current.superseded_by !== null) throw conflict(`this is a past version of a memory, replaced by ${current.superseded_by}: change that one`);
  const now = isoNow(clock);
  const observed = patch.observed_at === undefined ? undefined : statementTime(patch.observed_at, now);
  const targets = patch.supersedes === undefined ? [] : await supersededTargets(mindContext, patch.supersedes, { id });
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
  const replaced = afterWrite(mindContext, supersession([sql`select ${memories.id} from ${memories} where ${memories.supersededBy} = ${id}`], id));
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
        ...(observed !== undefined && { observedAt: observed, validFrom: observed }),
        ...(patch.context !== undefined && contextColumns(scope.mindId, patch.context)),
      })
      .where(and(eq(memories.id, id), inScope(scope), isCurrent))
      .returning(),
    shard.insert(memoryHistory).values(historyEntry(scope, id, "update", current.content, content, now, changes)),
    ...supersedeStatements(shard, scope, targets, { by: sql`${id}`, from: observed ?? current.valid_from, actor: actorOf(scope.principal), at: now }),
    guard,
    ...after.statements,
    ...(targets.length > 0 ? replaced.statements : []),
  ]));
  if (!rows[0]) throw notFound("memory");
  after.landed();
  if (targets.length > 0) replaced.landed(targets);
  return toMemoryWithContext(rows[0], patch.context !== undefined);
}

/** Deletes a memory with its past versions (memories it superseded under other keys stay, replaced); its history stays. */
export async function deleteMemory(mindContext: MindContext, id: string): Promise<void> {
  const { scope } = mindContext;
  const { shard, clock } = mindContext;
  const going = await memoryWithVersions(mindContext, id);
  const now = isoNow(clock);
  const ids = going.map((m) => m.id);
  const after = afterWrite(mindContext, { row: "memory", what: "deleted", ids });
  const deleted = await writeWith(
    shard,
    shard.delete(memories).where(and(inArray(memories.id, ids), eq(memories.mindId, scope.mindId))).returning({ id: memories.id }),
    after,
    [shard.insert(memoryHistory).values(going.map((m) => historyEntry(scope, m.id, "delete", m.content, null, now)))],
  );
  if (!deleted.some((row) => row.id === id)) throw notFound("memory");
  after.landed();
}

/** A memory of the scope and its past versions (one read): what deleting it deletes. */
async function memoryWithVersions({ shard, scope }: Pick<MindContext, "scope" | "shard">, id: string): Promise<Memory[]> {
  const current = alias(memories, "current");
  const versionOf = and(
    eq(memories.supersededBy, current.id),
    eq(memories.agent, current.agent),
    eq(memories.category, current.category),
    sql`${memories.key} >= ${current.key} || ${REPLACED_KEY_MARK} and ${memories.key} < ${current.key} || '$'`,
  );
  const rows = await shard
    .select({ memory: memories })
    .from(current)
    .innerJoin(memories, or(eq(memories.id, current.id), versionOf))
    .where(and(eq(current.id, id), inScope(scope, current), eq(memories.mindId, scope.mindId)))
    .limit(VERSIONS_KEPT + 1);
  if (!rows.some((r) => r.memory.id === id)) throw notFound("memory");
  return rows.map((r) => toMemory(r.memory));
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

export async function listMemories(
  { shard, scope }: Pick<MindContext, "scope" | "shard">,
  filter: MemoryListFilter,
): Promise<{ memories: Memory[]; total: number }> {
  const where = and(
    inScope(scope),
    inTime(filter),
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

/** Unexpired memories carrying the tag, most important first: those valid now, or as `view` asks. */
export async function memoriesByTag(
  { shard, clock, scope }: Pick<MindContext, "clock" | "scope" | "shard">,
  tag: string,
  limit: number,
  view: TimeView = {},
): Promise<Memory[]> {
  const rows = await shard
    .select()
    .from(memories)
    .where(and(inScope(scope), hasTag(tag), notExpired(expiryTime(view, isoNow(clock))), inTime(view)))
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
    .where(and(inScope(scope), isCurrent, gt(memories.expiresAt, now.toISOString()), lte(memories.expiresAt, until)))
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
