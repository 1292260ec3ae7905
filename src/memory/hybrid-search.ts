import { and, inArray } from "drizzle-orm";
import { isoNow } from "../clock";
import { inIdChunks } from "../db/client";
import { memories } from "../db/schema";
import type { MindContext } from "../tenancy/mind-context";
import { inScope, notExpired } from "./filters";
import { MEANING_WEIGHT, reciprocalRankFusion } from "./fusion";
import { nearestRowIds, type QueryMeaning, queryMeaning } from "./query-meaning";
import { type Memory, toMemory } from "./rows";
import { type SearchHit, type SearchOptions, searchMemories } from "./search";
import { statedLaterFirst } from "./stated-later";
import { expiryTime, inTime, type TimeView } from "./time";

/** How a result list was found: full-text search alone, or fused with recall by meaning. */
export const RETRIEVALS = ["hybrid", "full_text"] as const;
export type Retrieval = (typeof RETRIEVALS)[number];

export interface RetrievedHits {
  hits: SearchHit[];
  retrieval: Retrieval;
}

// Each list contributes this many candidates before fusion; a memory found by meaning alone
// follows those full text found (fusion.ts), so it is there whenever full text finds few.
const CANDIDATES = 50;

/**
 * Memory search as every front uses it: full-text search, fused by reciprocal rank with the
 * memories nearest in meaning when this mind has vectors; full-text alone otherwise, or when
 * embedding the query fails or is over budget. The score of a fused hit is its fusion score.
 * Fused, hits on one subject come stated later first (stated-later.ts); full text orders them so itself (rerank.ts).
 * `meaning`: the query by meaning a request's other searches share (one embedding for all).
 */
export async function retrieveMemories(
  mindContext: MindContext, options: SearchOptions, meaning: QueryMeaning = queryMeaning(mindContext, options.q, ["memory"]),
): Promise<RetrievedHits> {
  if (!mindContext.semantic) return { hits: await searchMemories(mindContext, options), retrieval: "full_text" };
  const candidates = Math.max(options.limit, CANDIDATES);
  const [lexical, nearest] = await Promise.all([
    searchMemories(mindContext, { ...options, limit: candidates }),
    searchByMeaning(mindContext, meaning, candidates, options),
  ]);
  if (nearest === null) return { hits: lexical.slice(0, options.limit), retrieval: "full_text" };
  const filtered = nearest.filter(
    (m) => (options.category === undefined || m.category === options.category) && (options.tag === undefined || m.tags.includes(options.tag)),
  );
  const fused = reciprocalRankFusion([lexical.map((h) => h.memory), filtered], (m) => m.id, [1, MEANING_WEIGHT]);
  const hits = statedLaterFirst(fused.map(({ item, score }) => ({ memory: item, score })), options.q);
  return { hits: hits.slice(0, options.limit), retrieval: "hybrid" };
}

/** Memories nearest in meaning to the query, best first, within the scope and the read's time; null when recall by meaning is not available. */
async function searchByMeaning(mindContext: MindContext, meaning: QueryMeaning, limit: number, view: TimeView): Promise<Memory[] | null> {
  const ids = await nearestRowIds(mindContext, meaning, "memory", limit);
  if (ids === null || ids.length === 0) return ids === null ? null : [];
  // The index's answer is checked against the rows in SQL: only this scope's live memories count.
  const now = isoNow(mindContext.clock);
  const rows = await inIdChunks(ids, (chunk) =>
    mindContext.shard
      .select()
      .from(memories)
      .where(and(inArray(memories.id, chunk), inScope(mindContext.scope), notExpired(expiryTime(view, now)), inTime(view))),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => (byId.has(id) ? [toMemory(byId.get(id)!)] : [])).slice(0, limit);
}
