import { and, desc, eq, isNull } from "drizzle-orm";
import { isoNow } from "../clock";
import { minds, oauthGrants } from "../db/schema";
import type { Deps } from "../deps";
import { notFound } from "../errors";
import { newId } from "../ids";
import { Lru } from "../lru";
import { logFailure } from "../observe/log";
import { changing, DIRECTORY_TTL_MS, rememberMind } from "./directory-cache";

// A grant lets one OAuth client (a hosted assistant, an IDE) use one mind, optionally one agent
// namespace of it, as an agent would with a mind key. The OAuth provider keeps the tokens; this
// row is what a person reviews and revokes, and what every /mcp call checks first.

const LAST_USED_RESOLUTION_MS = 60 * 1000;
export const MAX_GRANTS_LISTED = 100;
/**
 * Live grants (null: revoked or unknown) by id, as /mcp last read them: a revocation elsewhere
 * waits DIRECTORY_TTL_MS at most. Ids come from tokens the provider decrypted (ours); 10,000 or 4 MB at most.
 */
const knownGrants = new Lru<GrantInfo | null>({ maxEntries: 10_000, maxBytes: 4 * 1024 * 1024, ttlMs: DIRECTORY_TTL_MS });

export interface GrantInfo {
  id: string;
  mind_id: string;
  account_id: string;
  agent: string | null;
  client_id: string;
  client_name: string;
  redirect_host: string;
  scope: string[];
  created_at: string;
  last_used_at: string | null;
}

export interface NewGrant {
  accountId: string;
  mindId: string;
  agent: string | null;
  clientId: string;
  clientName: string;
  redirectHost: string;
  scope: string[];
}

/**
 * Records a grant the person just approved. Authorizing a client again replaces its earlier
 * grant from the same person, as the provider does with the tokens.
 */
export async function recordGrant(deps: Pick<Deps, "directory" | "clock">, grant: NewGrant): Promise<GrantInfo> {
  const db = deps.directory;
  const { clock } = deps;
  const now = isoNow(clock);
  const id = newId("ocg");
  const [, [row]] = await db.batch([
    db
      .update(oauthGrants)
      .set({ revokedAt: now })
      .where(and(eq(oauthGrants.accountId, grant.accountId), eq(oauthGrants.clientId, grant.clientId), isNull(oauthGrants.revokedAt))),
    db
      .insert(oauthGrants)
      .values({ id, ...grant, clientName: grant.clientName.slice(0, 200), redirectHost: grant.redirectHost.slice(0, 200), scope: grant.scope.join(" "), createdAt: now })
      .returning(),
  ]);
  knownGrants.deleteWhere((known) => known !== null && known.account_id === grant.accountId && known.client_id === grant.clientId);
  return toInfo(row!);
}

/** The clients that may use a mind now, newest first. */
export async function listGrants(deps: Pick<Deps, "directory">, mindId: string): Promise<GrantInfo[]> {
  const db = deps.directory;
  const rows = await db
    .select()
    .from(oauthGrants)
    .where(and(eq(oauthGrants.mindId, mindId), isNull(oauthGrants.revokedAt)))
    .orderBy(desc(oauthGrants.createdAt))
    .limit(MAX_GRANTS_LISTED);
  return rows.map(toInfo);
}

/**
 * The live grant a token carries, with its use recorded (after the response); null once it is
 * revoked or its mind is gone, whatever the token's own expiry says. Cold, one directory read
 * brings the grant and its mind; warm, none, for up to DIRECTORY_TTL_MS.
 */
export async function useGrant(deps: Pick<Deps, "directory" | "clock" | "defer">, grantId: string): Promise<GrantInfo | null> {
  const now = deps.clock.now().getTime();
  let known = knownGrants.get(grantId, now);
  if (known === undefined) {
    const row = await deps.directory
      .select({ grant: oauthGrants, mind: minds })
      .from(oauthGrants)
      .leftJoin(minds, eq(minds.id, oauthGrants.mindId))
      .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)))
      .get();
    known = row ? toInfo(row.grant) : null;
    knownGrants.set(grantId, known, now);
    if (row) rememberMind(deps, row.grant.mindId, row.mind);
  }
  if (!known) return null;
  if (!known.last_used_at || now - Date.parse(known.last_used_at) > LAST_USED_RESOLUTION_MS) {
    known.last_used_at = new Date(now).toISOString();
    const write = deps.directory
      .update(oauthGrants)
      .set({ lastUsedAt: known.last_used_at })
      .where(eq(oauthGrants.id, grantId))
      .run()
      .catch((error: unknown) => logFailure("grant_use_record_failed", error));
    if (deps.defer) deps.defer(write);
    else await write;
  }
  return known;
}

/** Marks a mind's grant revoked; from now on no call made with its tokens gets through. */
export async function revokeGrantRecord(deps: Pick<Deps, "directory" | "clock">, mindId: string, grantId: string): Promise<GrantInfo> {
  const db = deps.directory;
  const { clock } = deps;
  const [row] = await changing(
    () => knownGrants.delete(grantId),
    () =>
      db
        .update(oauthGrants)
        .set({ revokedAt: isoNow(clock) })
        .where(and(eq(oauthGrants.id, grantId), eq(oauthGrants.mindId, mindId), isNull(oauthGrants.revokedAt)))
        .returning(),
  );
  if (!row) throw notFound("connected client");
  return toInfo(row);
}

/**
 * Marks a grant revoked whatever mind it is on, if it is still live: one whose refresh token was
 * replayed is known only by its id, and may have been revoked already.
 */
export async function revokeReplayedGrantRecord(deps: Pick<Deps, "directory" | "clock">, grantId: string): Promise<void> {
  await changing(
    () => knownGrants.delete(grantId),
    () =>
      deps.directory
        .update(oauthGrants)
        .set({ revokedAt: isoNow(deps.clock) })
        .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt))),
  );
}

const toInfo = (row: typeof oauthGrants.$inferSelect): GrantInfo => ({
  id: row.id,
  mind_id: row.mindId,
  account_id: row.accountId,
  agent: row.agent,
  client_id: row.clientId,
  client_name: row.clientName,
  redirect_host: row.redirectHost,
  scope: row.scope.split(" ").filter(Boolean),
  created_at: row.createdAt,
  last_used_at: row.lastUsedAt,
});

/** What revoking needs from the OAuth provider, which keeps the tokens. */
export interface GrantTokens {
  listUserGrants(
    userId: string,
    options?: { limit?: number; cursor?: string },
  ): Promise<{ items: { id: string; metadata: unknown; expiresAt?: number }[]; cursor?: string }>;
  revokeGrant(grantId: string, userId: string): Promise<void>;
}

const MAX_PROVIDER_PAGES = 20;

/**
 * The clients connected to a mind: its grants whose authorization code was exchanged for tokens
 * that still live. A grant whose code was never exchanged (the client gave up, or registered
 * again and started over) has no tokens at the provider, and is left out.
 */
export async function listConnectedGrants(deps: Pick<Deps, "directory">, tokens: GrantTokens, mindId: string): Promise<GrantInfo[]> {
  const grants = await listGrants(deps, mindId);
  const live = new Set<string>();
  for (const accountId of new Set(grants.map((g) => g.account_id))) {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PROVIDER_PAGES; page++) {
      const listed = await tokens.listUserGrants(accountId, { limit: 100, cursor });
      for (const item of listed.items) {
        // The provider sets a grant's expiry when its code is exchanged; before that it has none.
        const grantId = (item.metadata as { grantId?: unknown } | null)?.grantId;
        if (typeof grantId === "string" && item.expiresAt !== undefined) live.add(grantId);
      }
      if (!listed.cursor) break;
      cursor = listed.cursor;
    }
  }
  return grants.filter((g) => live.has(g.id));
}

/**
 * Revokes a client's grant on a mind: the record first (every /mcp call checks it, so the client
 * stops at once), then the provider's grant with its access and refresh tokens.
 */
export async function revokeGrant(deps: Pick<Deps, "directory" | "clock">, tokens: GrantTokens, mindId: string, grantId: string): Promise<void> {
  const row = await deps.directory.select().from(oauthGrants).where(and(eq(oauthGrants.id, grantId), eq(oauthGrants.mindId, mindId))).get();
  if (!row) throw notFound("connected client");
  await revokeGrantRecord(deps, mindId, grantId);
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PROVIDER_PAGES; page++) {
    const listed = await tokens.listUserGrants(row.accountId, { limit: 100, cursor });
    const match = listed.items.find((g) => (g.metadata as { grantId?: unknown } | null)?.grantId === grantId);
    if (match) return tokens.revokeGrant(match.id, row.accountId);
    if (!listed.cursor) return;
    cursor = listed.cursor;
  }
}
