import { and, asc, count, desc, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { isoNow } from "../clock";
import { mindKeys, minds } from "../db/schema";
import type { Deps } from "../deps";
import { conflict, describeZodError, invalid, notFound } from "../errors";
import { newId } from "../ids";
import { logFailure } from "../observe/log";
import { randomToken, secretsEqual, sha256Hex } from "../secrets";
import { changing, forgetKey, type KnownKey, knownKeys, rememberMind } from "./directory-cache";
import type { Principal } from "./principal";

const KEY_PREFIX = "emk_";
const LAST_USED_RESOLUTION_MS = 5 * 60 * 1000;
/** Keys a mind holds unrevoked at most: one per agent, tool or machine is far fewer. */
export const MAX_ACTIVE_KEYS = 100;
/** Keys a listing shows at most: every active one first, then the most recently revoked. */
const MAX_LISTED_KEYS = 200;

/** A key's name as its owner gives it: what holds the key ("laptop", "ci"); one line, bounded. */
export const keyName = z.string().trim().min(1).max(80).regex(/^[^\p{Cc}]*$/u, "a key's name is one line of text");

export interface MindKeyInfo {
  id: string;
  prefix: string;
  agent: string | null;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** True when a bearer token has the shape of a mind key rather than a JWT. */
export const looksLikeMindKey = (token: string) => token.startsWith(KEY_PREFIX);

/** A whole key as `createMindKey` makes it: its prefix (12 letters and digits after emk_), a dot, 32 random bytes in base64url. */
const MIND_KEY = /^emk_[A-Za-z0-9]{12}\.[A-Za-z0-9_-]{43}$/;

/**
 * Creates a key for the mind. The secret is returned once; only its prefix and SHA-256 are kept.
 * Past MAX_ACTIVE_KEYS unrevoked keys it is a conflict: revoke one first.
 */
export async function createMindKey(
  deps: Pick<Deps, "directory" | "clock">,
  mindId: string,
  options: { agent: string | null; name?: string | null },
): Promise<MindKeyInfo & { key: string }> {
  const { agent } = options;
  const name = options.name ? checkedKeyName(options.name) : null;
  const db = deps.directory;
  const { clock } = deps;
  const [active] = await db.select({ n: count() }).from(mindKeys).where(and(eq(mindKeys.mindId, mindId), isNull(mindKeys.revokedAt)));
  if ((active?.n ?? 0) >= MAX_ACTIVE_KEYS) throw conflict(`a mind holds at most ${MAX_ACTIVE_KEYS} unrevoked keys: revoke one first`);
  const prefix = `${KEY_PREFIX}${randomToken(9).replaceAll(/[-_]/g, "x")}`;
  const key = `${prefix}.${randomToken(32)}`;
  const [row] = await db
    .insert(mindKeys)
    .values({ id: newId("key"), mindId, agent, name, prefix, hash: await sha256Hex(key), createdAt: isoNow(clock) })
    .returning();
  return { ...toInfo(row!), key };
}

function checkedKeyName(typed: string): string {
  const parsed = keyName.safeParse(typed);
  if (!parsed.success) throw invalid(`name: ${describeZodError(parsed.error)}`);
  return parsed.data;
}

export async function listMindKeys(deps: Pick<Deps, "directory">, mindId: string): Promise<MindKeyInfo[]> {
  const db = deps.directory;
  const rows = await db
    .select()
    .from(mindKeys)
    .where(eq(mindKeys.mindId, mindId))
    .orderBy(asc(sql`${mindKeys.revokedAt} is not null`), desc(mindKeys.revokedAt), desc(mindKeys.createdAt))
    .limit(MAX_LISTED_KEYS);
  return rows.map(toInfo);
}

export async function revokeMindKey(deps: Pick<Deps, "directory" | "clock">, mindId: string, keyId: string): Promise<void> {
  const db = deps.directory;
  const { clock } = deps;
  const rows = await changing(
    () => forgetKey(keyId),
    () =>
      db
        .update(mindKeys)
        .set({ revokedAt: isoNow(clock) })
        .where(and(eq(mindKeys.id, keyId), eq(mindKeys.mindId, mindId), isNull(mindKeys.revokedAt)))
        .returning({ id: mindKeys.id }),
  );
  if (rows.length === 0) throw notFound("key");
}

/**
 * The agent principal a presented key stands for, or null if it is unknown, wrong or revoked.
 * Cold, one directory read brings the key and its mind (remembered for DIRECTORY_TTL_MS); warm,
 * none: the presented key's SHA-256 must equal a live key's, exactly as the row would be checked.
 */
export async function authenticateMindKey(deps: Pick<Deps, "directory" | "clock" | "defer">, presented: string): Promise<Principal | null> {
  // No key has another shape: anything else is refused before a cache or the directory sees it.
  if (!MIND_KEY.test(presented)) return null;
  const hash = await sha256Hex(presented);
  const now = deps.clock.now().getTime();
  let known = knownKeys.get(hash, now);
  if (!known) {
    const row = await deps.directory
      .select({ key: mindKeys, mind: minds })
      .from(mindKeys)
      .leftJoin(minds, eq(minds.id, mindKeys.mindId))
      .where(and(eq(mindKeys.prefix, presented.split(".", 1)[0] ?? ""), isNull(mindKeys.revokedAt)))
      .get();
    if (!row || !(await secretsEqual(hash, row.key.hash))) return null;
    const { key } = row;
    known = {
      principal: { kind: "agent", keyId: key.id, keyPrefix: key.prefix, mindId: key.mindId, agent: key.agent },
      lastUsedAt: key.lastUsedAt === null ? null : Date.parse(key.lastUsedAt),
    };
    knownKeys.set(hash, known, now);
    rememberMind(deps, key.mindId, row.mind);
  }
  await recordUse(deps, known, now);
  return known.principal;
}

/** Notes the key's use at most every 5 minutes, after the response when the request can defer work. */
async function recordUse(deps: Pick<Deps, "directory" | "defer">, known: KnownKey, now: number): Promise<void> {
  if (known.lastUsedAt !== null && now - known.lastUsedAt <= LAST_USED_RESOLUTION_MS) return;
  known.lastUsedAt = now;
  const write = deps.directory
    .update(mindKeys)
    .set({ lastUsedAt: new Date(now).toISOString() })
    .where(eq(mindKeys.id, known.principal.keyId))
    .run()
    .catch((error: unknown) => logFailure("key_use_record_failed", error));
  if (deps.defer) deps.defer(write);
  else await write;
}

const toInfo = (row: typeof mindKeys.$inferSelect): MindKeyInfo => ({
  id: row.id,
  prefix: row.prefix,
  agent: row.agent,
  name: row.name,
  created_at: row.createdAt,
  last_used_at: row.lastUsedAt,
  revoked_at: row.revokedAt,
});
