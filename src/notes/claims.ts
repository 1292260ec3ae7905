import { and, asc, desc, eq, isNotNull, isNull, like, lt, sql } from "drizzle-orm";
import { type ConsolidationRow, coldMemory, consolidations, notes } from "../db/schema";
import type { InShard } from "../deps";
import type { ErrorCode } from "../errors";
import { newId } from "../ids";
import type { Scope } from "../tenancy/principal";
import type { ColdNamespace } from "./cold-store";
import { type Note, toNote } from "./notes";

// A consolidation claims a batch of notes by writing its id on them. The claim is released
// when the consolidation fails, and the notes are deleted in the batch that writes cold
// memory when it succeeds. A claim older than STALE_CLAIM_MS (a Worker stopped mid-way) is
// taken back by the next hourly run, so no note stays held forever.

export const CONSOLIDATION_MODES = ["model", "offline", "client"] as const;
export type ConsolidationMode = (typeof CONSOLIDATION_MODES)[number];

/** The error code of a consolidation whose document would pass COLD_STORED_MAX_CHARS. */
export const COLD_FULL = "cold_memory_full" satisfies ErrorCode;

/** Longer than any Worker invocation may run, shorter than the hour between runs. */
export const STALE_CLAIM_MS = 30 * 60 * 1000;

export interface Claim {
  consolidationId: string;
  notes: Note[];
}

export interface Consolidation {
  id: string;
  agent: string;
  status: string;
  mode: string;
  note_count: number;
  attempts: number;
  from_version: number | null;
  to_version: number | null;
  /** What failed, as `code: message`; never raw database text. */
  error: string | null;
  /** The error's code alone (`internal`, `model_failed`, `memory_changed`, …). */
  error_code: string | null;
  started_at: string;
  finished_at: string | null;
}

export const toConsolidation = (row: ConsolidationRow): Consolidation => ({
  id: row.id,
  agent: row.agent,
  status: row.status,
  mode: row.mode,
  note_count: row.noteCount,
  attempts: row.attempts,
  from_version: row.fromVersion,
  to_version: row.toVersion,
  error: row.error,
  error_code: row.error === null ? null : (/^([a-z_]+): /.exec(row.error)?.[1] ?? "internal"),
  started_at: row.startedAt,
  finished_at: row.finishedAt,
});

/**
 * Claims up to `limit` unclaimed notes of the namespace, oldest first, for a new consolidation,
 * in one batch: a concurrent claim can never take the same note. Null when nothing is waiting.
 */
export async function claimNotes(
  { shard, clock, scope }: ColdNamespace & Pick<InShard, "clock">,
  target: { mode: ConsolidationMode; limit: number },
): Promise<Claim | null> {
  const id = newId("cons");
  const now = clock.now().toISOString();
  const staleBefore = new Date(clock.now().getTime() - STALE_CLAIM_MS).toISOString();
  const { mindId, agent } = scope;
  const [, , , , claimed] = await shard.batch([
    shard.insert(consolidations).values({ id, mindId, agent, status: "running", mode: target.mode, noteCount: 0, attempts: 0, startedAt: now }),
    shard
      .update(notes)
      .set({ consolidationId: id })
      .where(
        and(
          sql`rowid in (select rowid from notes where mind_id = ${mindId} and agent = ${agent} and consolidation_id is null
                        order by created_at, id limit ${target.limit})`,
          // A background consolidation waits while another holds the namespace: a unit delivered
          // twice at once folds its notes once and writes one version. A client's claim never waits.
          target.mode === "client"
            ? undefined
            : sql`not exists (select 1 from consolidations c where c.mind_id = ${mindId} and c.agent = ${agent}
                  and c.status = 'running' and c.id != ${id} and c.started_at >= ${staleBefore})`,
        ),
      ),
    shard
      .update(consolidations)
      .set({ noteCount: sql`(select count(*) from notes where consolidation_id = ${id})` })
      .where(eq(consolidations.id, id)),
    // A claim of nothing leaves no trace.
    shard.delete(consolidations).where(and(eq(consolidations.id, id), eq(consolidations.noteCount, 0))),
    shard.select().from(notes).where(and(eq(notes.mindId, mindId), eq(notes.consolidationId, id))).orderBy(asc(notes.createdAt), asc(notes.id)),
  ]);
  if (claimed.length === 0) return null;
  return { consolidationId: id, notes: claimed.map(toNote) };
}

/**
 * Gives the notes back and records why, with the cold memory version it read when that matters
 * (a full document); a consolidation that already finished is left as it is.
 */
export async function releaseClaim(
  { shard, clock }: Pick<InShard, "shard" | "clock">,
  consolidationId: string,
  failure: { error: string; fromVersion?: number },
): Promise<void> {
  await shard.batch([
    shard.update(notes).set({ consolidationId: null }).where(eq(notes.consolidationId, consolidationId)),
    shard
      .update(consolidations)
      .set({ status: "failed", error: failure.error.slice(0, 500), fromVersion: failure.fromVersion, finishedAt: clock.now().toISOString() })
      .where(and(eq(consolidations.id, consolidationId), eq(consolidations.status, "running"))),
  ]);
}

/**
 * Abandons consolidations running for longer than STALE_CLAIM_MS and frees every note not held
 * by a running consolidation (including claims a failed release left behind).
 */
export async function sweepStaleClaims({ shard, clock }: Pick<InShard, "shard" | "clock">): Promise<{ abandoned: number; released: number }> {
  const now = clock.now();
  const staleBefore = new Date(now.getTime() - STALE_CLAIM_MS).toISOString();
  const [abandoned, released] = await shard.batch([
    shard
      .update(consolidations)
      .set({ status: "abandoned", error: "claim_expired: the claim expired before the consolidation finished", finishedAt: now.toISOString() })
      .where(and(eq(consolidations.status, "running"), lt(consolidations.startedAt, staleBefore)))
      .returning({ id: consolidations.id }),
    shard
      .update(notes)
      .set({ consolidationId: null })
      .where(
        and(
          isNotNull(notes.consolidationId),
          sql`${notes.consolidationId} not in (select id from consolidations where status = 'running')`,
        ),
      )
      .returning({ id: notes.id }),
  ]);
  return { abandoned: abandoned.length, released: released.length };
}

/**
 * Whether a consolidation found the namespace's cold memory full at the version it holds now:
 * nothing made room since, so folding its notes again would fail again.
 */
export async function coldFoundFull({ shard, scope }: ColdNamespace): Promise<boolean> {
  const { mindId, agent } = scope;
  const found = await shard
    .select({ one: sql<number>`1` })
    .from(consolidations)
    .innerJoin(coldMemory, and(eq(coldMemory.mindId, consolidations.mindId), eq(coldMemory.agent, consolidations.agent)))
    .where(
      and(
        eq(consolidations.mindId, mindId),
        eq(consolidations.agent, agent),
        eq(consolidations.status, "failed"),
        like(consolidations.error, `${COLD_FULL}:%`),
        eq(consolidations.fromVersion, coldMemory.version),
      ),
    )
    .limit(1);
  return found.length > 0;
}

/** One consolidation of the namespace, or null. */
export async function getConsolidation({ shard, scope }: ColdNamespace, id: string): Promise<Consolidation | null> {
  const { mindId, agent } = scope;
  const row = await shard
    .select()
    .from(consolidations)
    .where(and(eq(consolidations.id, id), eq(consolidations.mindId, mindId), eq(consolidations.agent, agent)))
    .get();
  return row ? toConsolidation(row) : null;
}

/** Recent consolidations of the scope's mind (every namespace, or the one it reads), newest first. */
export async function listConsolidations(
  { shard, scope }: Pick<InShard, "shard"> & { scope: Pick<Scope, "mindId" | "agentFilter"> },
  limit: number,
): Promise<Consolidation[]> {
  const { mindId, agentFilter: agent } = scope;
  const rows = await shard
    .select()
    .from(consolidations)
    .where(and(eq(consolidations.mindId, mindId), agent === null ? undefined : eq(consolidations.agent, agent)))
    .orderBy(desc(consolidations.startedAt), desc(consolidations.id))
    .limit(limit);
  return rows.map(toConsolidation);
}

/** Namespaces with unclaimed notes, the longest-waiting first. */
export async function namespacesWithWaitingNotes({ shard }: Pick<InShard, "shard">, limit: number): Promise<{ mindId: string; agent: string }[]> {
  return shard
    .select({ mindId: notes.mindId, agent: notes.agent })
    .from(notes)
    .where(isNull(notes.consolidationId))
    .groupBy(notes.mindId, notes.agent)
    .orderBy(sql`min(${notes.createdAt})`)
    .limit(limit);
}
