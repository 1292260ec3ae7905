import { and, asc, eq, inArray, lte, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { isoNow } from "../clock";
import { embeddings, memories, notes } from "../db/schema";
import type { InShard } from "../deps";
import type { Semantic, VectorKind } from "../embeddings/ports";
import { AppError } from "../errors";
import { assertWithinBudget, recordUsage, type TokenAccount, utcDay } from "../llm/ledger";
import { type RetryPolicy, retryDelay } from "../retry";
import { tokenAccountOf } from "../tenancy/mind-context";
import { getMindById, type Mind } from "../tenancy/minds";

// Vectors follow the rows they stand for. A write marks its rows pending in its own batch and
// embedding runs off the request path (waitUntil), both through the after-write seam
// (src/memory/outbox.ts); a failure stays pending with a later next_attempt_at, and the
// hourly job retries it, embeds rows that never had a vector (backfill) and removes the vectors
// of rows that are gone. Every embedding call is checked against the mind's daily budget and
// written to the usage ledger like a model call.

export const EMBED_BATCH = 32;
/** Vectorize answers at most 100 matches a query when it returns neither values nor metadata. */
export const MAX_TOP_K = 100;
/** A failed embedding waits 2, 4, 8, … minutes, at most a day. */
export const EMBED_RETRY: RetryPolicy = { firstMs: 2 * 60_000, maxMs: 24 * 60 * 60_000 };
/** `embeddings.vector_layout` of a vector written in shared namespaces (1: one namespace per mind, before). */
export const SHARED_LAYOUT = 2;
/** Longest text embedded, a row's or a query's, in characters. */
export const MAX_TEXT_CHARS = 8_000;

/** Embedding's reads and writes: the rows' shard, the ports, the clock, and the directory for a mind's budget. */
type EmbedDeps = Pick<InShard, "directory" | "shard" | "clock" | "semantic">;

/**
 * The statement that marks rows of the mind to be (re-)embedded, to end a write's own batch
 * (src/memory/outbox.ts). A row is named by its id, or by SQL that selects ids; a row the batch
 * left absent (not written, or gone) is not marked.
 */
export function markForEmbedding(deps: Pick<InShard, "shard" | "clock">, kind: VectorKind, mindId: string, rows: (string | SQL)[]): BatchItem<"sqlite"> {
  const now = isoNow(deps.clock);
  const table = kind === "memory" ? memories : notes;
  const named = rows.filter((row) => typeof row === "string");
  const selected = rows.filter((row) => typeof row !== "string");
  const among = [...(named.length > 0 ? [inArray(table.id, named)] : []), ...selected.map((ids) => sql`${table.id} in (${ids})`)];
  // Every column of embeddings, in its order (vector_layout as its default gives it).
  const marked = sql`select ${kind}, ${table.id}, ${table.mindId}, 'pending', 0, ${now}, null, ${now}, 1 from ${table}
    where ${table.mindId} = ${mindId} and (${sql.join(among, sql` or `)})`;
  return deps.shard
    .insert(embeddings)
    .select(marked)
    .onConflictDoUpdate({
      target: [embeddings.kind, embeddings.rowId],
      set: { state: "pending", attempts: 0, nextAttemptAt: now, error: null, updatedAt: now },
    });
}

/**
 * Embeds up to `limit` due rows of one mind, or of every mind (null); failures wait and are
 * retried. The mind is named by its row when it was read already (a writer's context: its budget
 * is not read again) or by its id. `rowIds`: only these rows (a write's own, a handful).
 */
export async function embedPending(deps: EmbedDeps, mind: BudgetOf | string | null, limit = EMBED_BATCH, rowIds?: string[]) {
  const known = typeof mind === "string" ? undefined : (mind ?? undefined);
  const mindId = typeof mind === "string" ? mind : (mind?.id ?? null);
  const counts = { embedded: 0, failed: 0, postponed: 0 };
  const semantic = deps.semantic;
  if (!semantic) return counts;
  const due = await deps.shard
    .select()
    .from(embeddings)
    .where(
      and(
        eq(embeddings.state, "pending"),
        lte(embeddings.nextAttemptAt, isoNow(deps.clock)),
        mindId ? eq(embeddings.mindId, mindId) : undefined,
        rowIds ? inArray(embeddings.rowId, rowIds) : undefined,
      ),
    )
    .orderBy(asc(embeddings.nextAttemptAt))
    .limit(limit);
  const byMind = groupByMind(due);
  for (const [id, rows] of byMind) {
    const outcome = await embedRowsOfMind(deps, semantic, id, rows, known?.id === id ? known : undefined);
    counts[outcome] += rows.length;
  }
  return counts;
}

type Pending = typeof embeddings.$inferSelect;
export type BudgetOf = Pick<Mind, "id" | "settings">;

async function embedRowsOfMind(
  deps: EmbedDeps, semantic: Semantic, mindId: string, rows: Pending[], known?: BudgetOf,
): Promise<"embedded" | "failed" | "postponed"> {
  const texts = await textsOf(deps, mindId, rows);
  const present = rows.filter((r) => texts.has(r.rowId));
  let account: TokenAccount;
  try {
    account = tokenAccountOf({ mind: known ?? (await getMindById(deps, mindId)) });
    await assertWithinBudget(deps, account);
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== "budget_exceeded") throw err;
    // Over budget: the rows wait for tomorrow without spending an attempt.
    const tomorrow = `${utcDay(new Date(deps.clock.now().getTime() + 86_400_000))}T00:00:00.000Z`;
    await reschedule(deps, rows, { nextAttemptAt: tomorrow, error: err.message, attempts: (r) => r.attempts });
    return "postponed";
  }
  if (present.length === 0) return "embedded";
  try {
    const result = await semantic.embedder.embed(present.map((r) => texts.get(r.rowId)!.text));
    await recordUsage(deps, account, "embedding", { inputTokens: result.tokens, outputTokens: 0 }, false);
    await semantic.index.upsert(
      mindId,
      present.map((r, i) => ({ id: r.rowId, vector: result.vectors[i]!, kind: r.kind, agent: texts.get(r.rowId)!.agent })),
    );
    const now = isoNow(deps.clock);
    await deps.shard
      .update(embeddings)
      .set({ state: "done", error: null, updatedAt: now, vectorLayout: SHARED_LAYOUT })
      .where(and(eq(embeddings.mindId, mindId), inArray(embeddings.rowId, present.map((r) => r.rowId))));
    return "embedded";
  } catch (err) {
    await recordUsage(deps, account, "embedding", { inputTokens: 0, outputTokens: 0 }, true);
    const message = (err instanceof Error ? err.message : String(err)).slice(0, 300);
    await reschedule(deps, present, { error: message, attempts: (r) => r.attempts + 1 });
    return "failed";
  }
}

async function reschedule(deps: Pick<InShard, "shard" | "clock">, rows: Pending[], change: { nextAttemptAt?: string; error: string; attempts: (row: Pending) => number }) {
  const now = deps.clock.now();
  if (rows.length === 0) return;
  const [first, ...rest] = rows.map((row) => {
      const attempts = change.attempts(row);
      const next = change.nextAttemptAt ?? new Date(now.getTime() + retryDelay(EMBED_RETRY, attempts)).toISOString();
      return deps.shard
        .update(embeddings)
        .set({ attempts, nextAttemptAt: next, error: change.error, updatedAt: now.toISOString() })
        .where(and(eq(embeddings.kind, row.kind), eq(embeddings.rowId, row.rowId)));
  });
  await deps.shard.batch([first!, ...rest]);
}

export function groupByMind<T extends { mindId: string }>(rows: T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) groups.set(row.mindId, [...(groups.get(row.mindId) ?? []), row]);
  return groups;
}

/** The text to embed for each row that still exists in the mind, with its agent namespace. */
async function textsOf(deps: Pick<InShard, "shard">, mindId: string, rows: Pending[]): Promise<Map<string, { text: string; agent: string }>> {
  const texts = new Map<string, { text: string; agent: string }>();
  const memoryIds = rows.filter((r) => r.kind === "memory").map((r) => r.rowId);
  const noteIds = rows.filter((r) => r.kind === "note").map((r) => r.rowId);
  if (memoryIds.length > 0) {
    const found = await deps.shard
      .select({ id: memories.id, agent: memories.agent, key: memories.key, content: memories.content, tags: memories.tags })
      .from(memories)
      .where(and(eq(memories.mindId, mindId), inArray(memories.id, memoryIds)));
    for (const m of found) texts.set(m.id, { agent: m.agent, text: `${m.key.replaceAll("_", " ")}: ${m.content} ${m.tags.join(" ")}`.slice(0, MAX_TEXT_CHARS) });
  }
  if (noteIds.length > 0) {
    const found = await deps.shard
      .select({ id: notes.id, agent: notes.agent, text: notes.text })
      .from(notes)
      .where(and(eq(notes.mindId, mindId), inArray(notes.id, noteIds)));
    for (const n of found) texts.set(n.id, { agent: n.agent, text: n.text.slice(0, MAX_TEXT_CHARS) });
  }
  return texts;
}

/** Removes the vectors (and records) of up to `limit` rows that no longer exist. */
export async function removeGoneVectors(deps: Pick<InShard, "shard" | "semantic">, mindId: string | null, limit = 100): Promise<number> {
  const semantic = deps.semantic;
  if (!semantic) return 0;
  const gone = await deps.shard
    .select({ kind: embeddings.kind, rowId: embeddings.rowId, mindId: embeddings.mindId })
    .from(embeddings)
    .where(
      and(
        mindId ? eq(embeddings.mindId, mindId) : undefined,
        sql`((${embeddings.kind} = 'memory' and not exists (select 1 from memories m where m.id = ${embeddings.rowId} and m.mind_id = ${embeddings.mindId}))
          or (${embeddings.kind} = 'note' and not exists (select 1 from notes n where n.id = ${embeddings.rowId} and n.mind_id = ${embeddings.mindId})))`,
      ),
    )
    .limit(limit);
  for (const [mind, rows] of groupByMind(gone)) {
    const ids = rows.map((r) => r.rowId);
    await semantic.index.remove(mind, ids);
    await deps.shard.delete(embeddings).where(and(eq(embeddings.mindId, mind), inArray(embeddings.rowId, ids)));
  }
  return gone.length;
}

/** Backfill: marks up to `limit` memories and notes without a record (of one mind, or all) pending. */
export async function markMissing(deps: Pick<InShard, "shard" | "clock" | "semantic">, mindId: string | null, limit = 200): Promise<number> {
  if (!deps.semantic) return 0;
  const [memoryMarks, noteMarks] = missingMarks(deps, mindId, limit);
  const a = await memoryMarks;
  const b = await noteMarks;
  return (a.meta.changes ?? 0) + (b.meta.changes ?? 0);
}

/** The two statements of the backfill: up to `limit` memories, then notes, without a record marked pending. */
export function missingMarks(deps: Pick<InShard, "shard" | "clock">, mindId: string | null, limit = 200) {
  const now = isoNow(deps.clock);
  const mindFilter = (column: string) => (mindId ? sql`and ${sql.raw(column)} = ${mindId}` : sql``);
  // Every column of embeddings, in its order (vector_layout as its default gives it).
  return [
    deps.shard.insert(embeddings).select(sql`select 'memory', m.id, m.mind_id, 'pending', 0, ${now}, null, ${now}, 1 from memories m
      where not exists (select 1 from embeddings e where e.kind = 'memory' and e.row_id = m.id) ${mindFilter("m.mind_id")} limit ${limit}`),
    deps.shard.insert(embeddings).select(sql`select 'note', n.id, n.mind_id, 'pending', 0, ${now}, null, ${now}, 1 from notes n
      where not exists (select 1 from embeddings e where e.kind = 'note' and e.row_id = n.id) ${mindFilter("n.mind_id")} limit ${limit}`),
  ] as const;
}
