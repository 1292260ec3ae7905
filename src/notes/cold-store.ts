import { and, desc, eq, exists, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../db/client";
import { coldMemory, coldVersions, consolidations, notes } from "../db/schema";
import { newId } from "../ids";
import { afterWrite, type WriterContext } from "../memory/outbox";
import type { Scope } from "../tenancy/principal";

/**
 * The largest cold document a person or client writes (PUT /cold, the MCP tool, the web UI). A
 * consolidation keeps every fact, so the document it writes may grow past it, up to
 * COLD_STORED_MAX_CHARS.
 */
export const COLD_MAX_CHARS = 32_000;

/**
 * The largest cold document edgemind stores: a consolidation that would pass it writes nothing
 * and leaves its notes waiting, and an archive may carry a document (and versions) this long.
 * D1 holds at most 2,000,000 bytes in a string or row: at 4 UTF-8 bytes a character this is
 * 1,024,000 bytes, leaving room for the row's other columns; an import stages a version as JSON
 * inside JSON, at most 7 bytes a character (`\\u0001`), 1,792,000 bytes, still within that limit.
 */
export const COLD_STORED_MAX_CHARS = 256_000;

export interface Cold {
  text: string;
  /** 0 until the first write. */
  version: number;
  updated_at: string | null;
}

export interface ColdWrite {
  mindId: string;
  agent: string;
  text: string;
  /** The version the writer read; the write lands only if it is still current. */
  expectedVersion: number;
  /** Who wrote it: `user:…`, `key:…` or `consolidation`. */
  author: string;
  now: string;
  /** With a consolidation, its claimed notes are deleted in the same batch and it is marked done. */
  consolidationId?: string;
  attempts?: number;
  /** The quota's guard (writeWithinQuota): it ends the batch and fails it past a quota. */
  guard: BatchItem<"sqlite">;
  /** The writer, as the after-write seam reads it, and who it is (actorOf); absent, the change is told no reader. */
  writer?: { context: WriterContext; actor: string };
}

/** Where a cold memory lives: the mind's shard and the scope's namespace (a `MindContext` is one). */
export interface ColdNamespace {
  shard: Db;
  scope: Pick<Scope, "mindId" | "agent">;
}

export type ColdWriteResult = { ok: true; version: number; foldedNotes: number } | { ok: false };

/** The cold memory of a mind's agent namespace; an empty document at version 0 before any write. */
export async function getCold({ shard, scope }: ColdNamespace): Promise<Cold> {
  const { mindId, agent } = scope;
  const row = await shard
    .select({ text: coldMemory.text, version: coldMemory.version, updatedAt: coldMemory.updatedAt })
    .from(coldMemory)
    .where(and(eq(coldMemory.mindId, mindId), eq(coldMemory.agent, agent)))
    .get();
  return row ? { text: row.text, version: row.version, updated_at: row.updatedAt } : { text: "", version: 0, updated_at: null };
}

/**
 * Compare-and-swap of cold memory in one D1 batch: the new text lands only if the version is
 * still `expectedVersion` (and, for a consolidation, only while it still holds its claim);
 * every later statement of the batch checks that this very write landed before it records
 * the version, deletes the folded notes or closes the consolidation. A stale write changes nothing.
 */
export async function compareAndSwapCold(shard: Db, write: ColdWrite): Promise<ColdWriteResult> {
  const writeId = newId("cw");
  const swap = swapCold(shard, write, writeId);
  const record = recordColdVersion(shard, write, writeId);
  const after = write.writer ? afterWrite(write.writer.context, { row: "cold", what: "updated", ids: [writeId], actor: write.writer.actor }) : null;
  const told = after?.statements ?? [];
  if (!write.consolidationId) {
    const [swapped] = await shard.batch([swap, record, ...told, write.guard]);
    return landedAs(swapped[0], 0, after);
  }
  const landed = exists(shard.select({ one: sql<number>`1` }).from(coldMemory).where(writtenBy(write, writeId)));
  const [swapped, , folded] = await shard.batch([
    swap,
    record,
    deleteFoldedNotes(shard, write, write.consolidationId, landed),
    closeConsolidation(shard, write, write.consolidationId, landed),
    ...told,
    write.guard,
  ]);
  return landedAs(swapped[0], folded.length, after);
}

/** The write's result; once it landed, what follows it starts. */
function landedAs(swapped: { version: number } | undefined, foldedNotes: number, after: { landed(): void } | null): ColdWriteResult {
  if (!swapped) return { ok: false };
  after?.landed();
  return { ok: true, version: swapped.version, foldedNotes };
}

/** The namespace's cold memory row, only as this very write left it. */
const writtenBy = ({ mindId, agent }: ColdWrite, writeId: string) =>
  and(eq(coldMemory.mindId, mindId), eq(coldMemory.agent, agent), eq(coldMemory.writeId, writeId));

/** The consolidation, only while it is still running: while it holds its claim. */
const claimHeld = (mindId: string, consolidationId: string) =>
  and(eq(consolidations.id, consolidationId), eq(consolidations.mindId, mindId), eq(consolidations.status, "running"));

/** The statement that writes the text: an update of the expected version, or the first row. */
function swapCold(shard: Db, write: ColdWrite, writeId: string) {
  if (write.expectedVersion > 0) return updateCold(shard, write, writeId);
  if (write.consolidationId) return insertFirstColdOfClaim(shard, write, write.consolidationId, writeId);
  return shard
    .insert(coldMemory)
    .values({ mindId: write.mindId, agent: write.agent, text: write.text, version: 1, writeId, updatedAt: write.now })
    .onConflictDoNothing()
    .returning({ version: coldMemory.version });
}

/** Bumps the version, only while it is still the expected one (and a consolidation still holds its claim). */
function updateCold(shard: Db, write: ColdWrite, writeId: string) {
  const { mindId, agent, consolidationId } = write;
  return shard
    .update(coldMemory)
    .set({ text: write.text, version: sql`${coldMemory.version} + 1`, writeId, updatedAt: write.now })
    .where(
      and(
        eq(coldMemory.mindId, mindId),
        eq(coldMemory.agent, agent),
        eq(coldMemory.version, write.expectedVersion),
        consolidationId
          ? exists(shard.select({ one: sql<number>`1` }).from(consolidations).where(claimHeld(mindId, consolidationId)))
          : undefined,
      ),
    )
    .returning({ version: coldMemory.version });
}

/** The first write of a consolidation: the row comes from its own claim, so a lost claim inserts nothing. */
function insertFirstColdOfClaim(shard: Db, write: ColdWrite, consolidationId: string, writeId: string) {
  const { mindId, agent } = write;
  return shard
    .insert(coldMemory)
    .select(
      shard
        .select({
          mindId: sql<string>`${mindId}`.as("mind_id"),
          agent: sql<string>`${agent}`.as("agent"),
          text: sql<string>`${write.text}`.as("text"),
          version: sql<number>`1`.as("version"),
          writeId: sql<string>`${writeId}`.as("write_id"),
          updatedAt: sql<string>`${write.now}`.as("updated_at"),
        })
        .from(consolidations)
        .where(claimHeld(mindId, consolidationId)),
    )
    .onConflictDoNothing()
    .returning({ version: coldMemory.version });
}

/** Copies the text this write left into the version history; nothing when the write did not land. */
function recordColdVersion(shard: Db, write: ColdWrite, writeId: string) {
  return shard.insert(coldVersions).select(
    shard
      .select({
        mindId: coldMemory.mindId,
        agent: coldMemory.agent,
        version: coldMemory.version,
        text: coldMemory.text,
        author: sql<string>`${write.author}`.as("author"),
        consolidationId: sql<string | null>`${write.consolidationId ?? null}`.as("consolidation_id"),
        createdAt: coldMemory.updatedAt,
      })
      .from(coldMemory)
      .where(writtenBy(write, writeId)),
  );
}

/** Deletes the notes the consolidation folded in, once its write `landed`. */
function deleteFoldedNotes(shard: Db, { mindId }: ColdWrite, consolidationId: string, landed: SQL) {
  return shard
    .delete(notes)
    .where(and(eq(notes.mindId, mindId), eq(notes.consolidationId, consolidationId), landed))
    .returning({ id: notes.id });
}

/** Marks the consolidation done, from the version it read to the one it wrote, once its write `landed`. */
function closeConsolidation(shard: Db, write: ColdWrite, consolidationId: string, landed: SQL) {
  return shard
    .update(consolidations)
    .set({
      status: "done",
      fromVersion: write.expectedVersion,
      toVersion: write.expectedVersion + 1,
      attempts: write.attempts ?? 1,
      finishedAt: write.now,
    })
    .where(and(claimHeld(write.mindId, consolidationId), landed));
}

export interface ColdVersionInfo {
  version: number;
  author: string;
  consolidation_id: string | null;
  created_at: string;
  chars: number;
}

/** Every version of the namespace's cold memory, newest first. */
export async function listColdVersions({ shard, scope }: ColdNamespace, page: { limit: number; offset: number }): Promise<ColdVersionInfo[]> {
  const { mindId, agent } = scope;
  const rows = await shard
    .select({
      version: coldVersions.version,
      author: coldVersions.author,
      consolidationId: coldVersions.consolidationId,
      createdAt: coldVersions.createdAt,
      chars: sql<number>`length(${coldVersions.text})`,
    })
    .from(coldVersions)
    .where(and(eq(coldVersions.mindId, mindId), eq(coldVersions.agent, agent)))
    .orderBy(desc(coldVersions.version))
    .limit(page.limit)
    .offset(page.offset);
  return rows.map((r) => ({
    version: r.version,
    author: r.author,
    consolidation_id: r.consolidationId,
    created_at: r.createdAt,
    chars: r.chars,
  }));
}

/** One stored version's text, or null when the namespace has no such version. */
export async function getColdVersion({ shard, scope }: ColdNamespace, version: number): Promise<(ColdVersionInfo & { text: string }) | null> {
  const { mindId, agent } = scope;
  const row = await shard
    .select()
    .from(coldVersions)
    .where(and(eq(coldVersions.mindId, mindId), eq(coldVersions.agent, agent), eq(coldVersions.version, version)))
    .get();
  if (!row) return null;
  return {
    version: row.version,
    author: row.author,
    consolidation_id: row.consolidationId,
    created_at: row.createdAt,
    chars: row.text.length,
    text: row.text,
  };
}
