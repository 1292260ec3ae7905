import { and, eq } from "drizzle-orm";
import { accounts, minds } from "../db/schema";
import type { Deps } from "../deps";
import { notFound } from "../errors";
import { isMindId } from "../ids";
import { Lru } from "../lru";
import { type Mind, toMind } from "./minds";
import type { Principal } from "./principal";

// What a request needs from the directory (its credential's principal, the mind with its
// settings and shard) kept per isolate for a few seconds, so a warm request asks the directory
// nothing. A change is seen at once by the isolate that made it (it forgets its entry) and by
// every other isolate within DIRECTORY_TTL_MS. While a mind's data is copied to another shard,
// and for DIRECTORY_TTL_MS after the directory switched to it (portability/move/move.ts), its old copy
// refuses every write itself (migrations/0014_shards.sql): a write sent there on a stale entry is
// answered 503 mind_moving, which the client retries.

/** How long a directory answer is trusted: the bound on a revocation, erasure, move or settings change. */
export const DIRECTORY_TTL_MS = 10_000;
/** Entries of each kind an isolate keeps at most, and their bytes: 14 MB at worst in all. */
const MAX_ENTRIES = 10_000;
const MB = 1024 * 1024;

export type AgentPrincipal = Extract<Principal, { kind: "agent" }>;
export interface KnownKey {
  principal: AgentPrincipal;
  /** When the key's use was last recorded (ms), or null. */
  lastUsedAt: number | null;
}
/** A live mind with its owner; null: no such mind, or it is being erased. */
export type KnownMind = { accountId: string; mind: Mind } | null;

/** Live keys by the SHA-256 of the whole key: only the very secret finds its entry. */
export const knownKeys = new Lru<KnownKey>({ maxEntries: MAX_ENTRIES, maxBytes: 4 * MB, ttlMs: DIRECTORY_TTL_MS });
/** Minds by id, and the absence of a well-formed id: nothing else is a key here. */
export const knownMinds = new Lru<KnownMind>({ maxEntries: MAX_ENTRIES, maxBytes: 8 * MB, ttlMs: DIRECTORY_TTL_MS });
const knownAccounts = new Lru<true>({ maxEntries: MAX_ENTRIES, maxBytes: 2 * MB, ttlMs: DIRECTORY_TTL_MS });

type DirectoryDeps = Pick<Deps, "directory" | "clock">;
const nowOf = (deps: Pick<Deps, "clock">) => deps.clock.now().getTime();

/** This isolate stops trusting what it knew of the key (revoked just now). */
export function forgetKey(keyId: string): void {
  knownKeys.deleteWhere((known) => known.principal.keyId === keyId);
}

/** This isolate stops trusting what it knew of the mind (its settings, shard or existence changed just now). */
export function forgetMind(mindId: string): void {
  knownMinds.delete(mindId);
}

/** Remembers a mind row a query read anyway (a key's or a grant's join), or its absence. */
export function rememberMind(deps: Pick<Deps, "clock">, mindId: string, row: typeof minds.$inferSelect | null): KnownMind {
  const known = row && row.erasingSince === null ? { accountId: row.accountId, mind: toMind(row) } : null;
  knownMinds.set(mindId, known, nowOf(deps));
  return known;
}

async function knownMindEntry(deps: DirectoryDeps, mindId: string): Promise<KnownMind> {
  // The fronts refuse anything but a mind id (400) before they get here; whatever else arrives is no mind, and no key.
  if (!isMindId(mindId)) return null;
  const cached = knownMinds.get(mindId, nowOf(deps));
  if (cached !== undefined) return cached;
  const row = await deps.directory.select().from(minds).where(eq(minds.id, mindId)).get();
  return rememberMind(deps, mindId, row ?? null);
}

/** The live mind by id (a principal bound to it), from this isolate's memory or one directory read. */
export async function knownMindById(deps: DirectoryDeps, mindId: string): Promise<Mind> {
  const known = await knownMindEntry(deps, mindId);
  if (!known) throw notFound("mind");
  return known.mind;
}

/** The account's live mind, or not_found (another account's mind is answered as missing). */
export async function knownMindOf(deps: DirectoryDeps, accountId: string, mindId: string): Promise<Mind> {
  const known = await knownMindEntry(deps, mindId);
  if (!known || known.accountId !== accountId) throw notFound("mind");
  return known.mind;
}

/**
 * Whether the account exists, in one directory read that also brings the mind the request names
 * (X-Mind-Id) if the account owns it; remembered for DIRECTORY_TTL_MS.
 */
export async function knownAccount(deps: DirectoryDeps, accountId: string, mindId: string | null): Promise<boolean> {
  const now = nowOf(deps);
  if (knownAccounts.get(accountId, now)) return true;
  const named = mindId !== null && isMindId(mindId) ? mindId : "";
  const row = await deps.directory
    .select({ id: accounts.id, mind: minds })
    .from(accounts)
    .leftJoin(minds, and(eq(minds.id, named), eq(minds.accountId, accounts.id)))
    .where(eq(accounts.id, accountId))
    .get();
  if (!row) return false;
  knownAccounts.set(accountId, true, now);
  // Only a mind the account owns is remembered: a miss here says nothing of another's mind.
  if (row.mind) rememberMind(deps, row.mind.id, row.mind);
  return true;
}

/**
 * Runs a change of the directory, then forgets what it changed in this isolate's cache, even
 * when the change failed or its answer was lost (it may have been made all the same).
 */
export async function changing<T>(forget: () => void, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } finally {
    forget();
  }
}
