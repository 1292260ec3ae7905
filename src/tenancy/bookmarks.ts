import { D1_BOOKMARK, newerBookmark, type ReplicaReads, readFromReplicas } from "../db/replicas";
import { invalid } from "../errors";
import { Lru } from "../lru";
import type { MindContext } from "./mind-context";

/**
 * What a client carries for one mind so it reads its own writes: the mind, the database that
 * held it, and a D1 bookmark of that database. Handed back sealed, `<mind id>:<shard>:<D1
 * bookmark>:<seal>`: the seal (an HMAC of the rest under a key of this deployment) is how a
 * bookmark sent back is known to be one D1 gave this service, not one a client made up.
 */
export interface MindBookmark {
  mindId: string;
  shard: string;
  bookmark: string;
}

const MAX_BOOKMARK_CHARS = 160;
const TOKEN = /^(mind_[0-9a-z]{26}):(DB|SHARD_[1-9][0-9]{0,5}):([^:]+)(?::([A-Za-z0-9_-]{22}))?$/;
const EXPECTED = "a bookmark this service returned for the mind: <mind id>:<shard>:<D1 bookmark>:<seal>";

/** The key bookmarks are sealed with, from a secret of the deployment (JWT_SECRET), one per isolate. */
let sealKey: { secret: string; key: Promise<CryptoKey> } | null = null;

/** The key sealing this deployment's bookmarks. */
export function bookmarkSeal(secret: Uint8Array): Promise<CryptoKey> {
  const text = new TextDecoder().decode(secret);
  if (sealKey?.secret !== text) {
    const material = new TextEncoder().encode(`edgemind bookmark seal\u0000${text}`);
    sealKey = { secret: text, key: crypto.subtle.importKey("raw", material, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]) };
  }
  return sealKey.key;
}

async function sealOf(key: CryptoKey, unsealed: string): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(unsealed)));
  return btoa(String.fromCharCode(...mac.subarray(0, 16))).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** A bookmark as the header hands it back: `<mind id>:<shard>:<D1 bookmark>`, sealed. */
export async function sealBookmark(key: CryptoKey, unsealed: string): Promise<string> {
  return `${unsealed}:${await sealOf(key, unsealed)}`;
}

/**
 * A bookmark a client sent back: blank or absent is none, anything malformed is `invalid`. One
 * this service did not seal (made up, or handed back before bookmarks were sealed) is none too:
 * it never starts a session, nor is it kept or handed back.
 */
export async function readMindBookmark(key: CryptoKey, token: string | null | undefined): Promise<MindBookmark | null> {
  const value = token?.trim() ?? "";
  if (value === "") return null;
  if (value.length > MAX_BOOKMARK_CHARS) throw invalid(`bookmark: longer than ${MAX_BOOKMARK_CHARS} characters; expected ${EXPECTED}`);
  const match = TOKEN.exec(value);
  if (!match || !D1_BOOKMARK.test(match[3]!)) throw invalid(`bookmark: malformed; expected ${EXPECTED}`);
  const [, mindId, shard, bookmark, seal] = match as unknown as [string, string, string, string, string | undefined];
  if (seal === undefined || !timingSafeEqualText(seal, await sealOf(key, `${mindId}:${shard}:${bookmark}`))) return null;
  return { mindId, shard, bookmark };
}

function timingSafeEqualText(a: string, b: string): boolean {
  const [x, y] = [new TextEncoder().encode(a), new TextEncoder().encode(b)];
  return x.byteLength === y.byteLength && crypto.subtle.timingSafeEqual(x, y);
}

const formatBookmark = (mindContext: MindContext, bookmark: string) => `${mindContext.mind.id}:${mindContext.mind.shard}:${bookmark}`;

// The newest position each caller reached in each mind, kept per isolate: a caller that never
// sends X-Edgemind-Bookmark (an MCP client, curl, the bot) still reads its own writes from a
// replica when its next request lands on the same isolate. Another isolate starts its reads at
// the primary for a caller it has not seen write, unless the caller sends the header.
const MAX_CALLERS = 10_000;
/** How long a caller's position is kept: long past any replica's lag. */
const POSITION_TTL_MS = 10 * 60_000;
/** Keys name a principal, a mind and a database (each checked before), values are D1 bookmarks: 4 MB at most. */
const positions = new Lru<string>({ maxEntries: MAX_CALLERS, maxBytes: 4 * 1024 * 1024, ttlMs: POSITION_TTL_MS });

/** Who a position belongs to: the key, OAuth client, chat's account or person, in one mind and database. */
function callerOf(mindContext: MindContext): string {
  const p = mindContext.scope.principal;
  const who =
    p.kind === "agent" ? `key:${p.keyId}` : p.kind === "client" ? `grant:${p.grantId}` : p.kind === "system" ? `system:${p.job}` : `${p.kind}:${p.accountId}`;
  return `${who}|${mindContext.mind.id}|${mindContext.mind.shard}`;
}

/** A mind context whose statements go through one D1 session, and what it hands back. */
export interface MindSession {
  mindContext: MindContext;
  /** The newest bookmark the session (or a write reported to it) reached, for the client (to be sealed). */
  bookmark(): string | null;
  /** Keeps the caller's newest position in this isolate; call once the operation succeeded. */
  remember(): void;
}

/**
 * The context working in its mind's database through one D1 session. Reads start where the
 * caller was last seen in this mind (the bookmark it sent, or the one this isolate kept for
 * it, whichever is newer), so it reads its own writes from any replica at least that new; a
 * caller with no known position reads any replica (`first-unconstrained`, a few seconds stale at
 * worst), or the primary with `fresh` (a write's reads). A bookmark of another mind, or of the
 * database a mind lived on before it moved, says nothing about this one. A write made elsewhere
 * (a session's object) reports its bookmark through the context's `sawBookmark`.
 */
export function openMindSession(mindContext: MindContext, sent: MindBookmark | null, options: { fresh?: boolean } = {}): MindSession {
  const caller = callerOf(mindContext);
  const now = () => mindContext.clock.now().getTime();
  const known = newerBookmark(positionIn(mindContext, sent), positions.get(caller, now()) ?? null);
  // A write reads what it changes at the primary, whatever this caller saw: another caller may have written since.
  const reads = readFromReplicas(mindContext.shard, options.fresh ? "first-primary" : (known ?? "first-unconstrained"));
  return mindSessionOver(mindContext, reads, known, (bookmark) => positions.set(caller, bookmark, now()));
}

/** The D1 bookmark a kept or sent position holds for this mind's database now (null: none, or of another mind or database). */
export function positionIn(mindContext: { mind: Pick<MindContext["mind"], "id" | "shard"> }, position: MindBookmark | null): string | null {
  return position !== null && position.mindId === mindContext.mind.id && position.shard === mindContext.mind.shard ? position.bookmark : null;
}

/**
 * The context working through `reads`, a session already open on its mind's database; `known`
 * is where the caller was before it; `keep` stores the newest position once remembered.
 */
export function mindSessionOver(mindContext: MindContext, reads: ReplicaReads, known: string | null, keep: (bookmark: string) => void): MindSession {
  let reported: string | null = null;
  const newest = () => newerBookmark(reads.bookmark(), reported);
  return {
    mindContext: { ...mindContext, shard: reads.db, sawBookmark: (bookmark) => (reported = newerBookmark(reported, bookmark)) },
    bookmark: () => {
      const latest = newest();
      return latest === null ? null : formatBookmark(mindContext, latest);
    },
    remember: () => {
      // A position D1 refused is not kept: the session went on from the primary without it.
      const latest = reads.refused() ? newest() : newerBookmark(newest(), known);
      if (latest !== null) keep(latest);
    },
  };
}
