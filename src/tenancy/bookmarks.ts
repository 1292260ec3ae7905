import { D1_BOOKMARK, newestBookmark, readFromReplicas } from "../db/replicas";
import { invalid } from "../errors";
import type { MindContext } from "./mind-context";

/**
 * What a client carries for one mind so it reads its own writes: the mind, the database that
 * held it, and a D1 bookmark of that database. Written `<mind id>:<shard>:<D1 bookmark>`.
 */
export interface MindBookmark {
  mindId: string;
  shard: string;
  bookmark: string;
}

const MAX_BOOKMARK_CHARS = 160;
const TOKEN = /^(mind_[0-9a-z]{1,64}):(DB|SHARD_[1-9][0-9]{0,5}):(.+)$/;
const EXPECTED = "a bookmark this service returned for the mind: <mind id>:<shard>:<D1 bookmark>";

/** A bookmark a client sent back (blank or absent: none); anything malformed is `invalid`. */
export function parseMindBookmark(token: string | null | undefined): MindBookmark | null {
  const value = token?.trim() ?? "";
  if (value === "") return null;
  if (value.length > MAX_BOOKMARK_CHARS) throw invalid(`bookmark: longer than ${MAX_BOOKMARK_CHARS} characters; expected ${EXPECTED}`);
  const match = TOKEN.exec(value);
  if (!match || !D1_BOOKMARK.test(match[3]!)) throw invalid(`bookmark: malformed; expected ${EXPECTED}`);
  return { mindId: match[1]!, shard: match[2]!, bookmark: match[3]! };
}

const formatBookmark = (ctx: MindContext, bookmark: string) => `${ctx.mind.id}:${ctx.mind.shard}:${bookmark}`;

/** A mind context whose reads go through one D1 session, and the bookmark to hand back for it. */
export interface BookmarkedReads {
  ctx: MindContext;
  bookmark(): string | null;
}

/**
 * The context reading its mind's database through a D1 session that starts where the caller
 * last saw this mind: any replica at least that new serves it, so the caller reads its own
 * writes. A bookmark of another mind, or of the database a mind lived on before it moved, says
 * nothing about this one: the session then starts at the primary.
 */
export function readFromBookmark(ctx: MindContext, seen: MindBookmark | null): BookmarkedReads {
  const usable = seen !== null && seen.mindId === ctx.mind.id && seen.shard === ctx.mind.shard ? seen.bookmark : null;
  const reads = readFromReplicas(ctx.shard, usable);
  return {
    ctx: { ...ctx, shard: reads.db },
    bookmark: () => {
      const latest = reads.bookmark();
      return latest === null ? null : formatBookmark(ctx, latest);
    },
  };
}

/** After a write in the mind: the bookmark that covers it, from the primary of the mind's database. */
export async function bookmarkAfterWrite(ctx: MindContext): Promise<string | null> {
  const latest = await newestBookmark(ctx.shard);
  return latest === null ? null : formatBookmark(ctx, latest);
}
