import type { Scope } from "../auth/principal";
import type { Deps } from "../deps";
import { reciprocalRankFusion } from "./fusion";
import { searchMemories, type SearchHit, type SearchOptions } from "./search";
import { searchByMeaning } from "./semantic";

/** How a result list was found: full-text search alone, or fused with recall by meaning. */
export type Retrieval = "hybrid" | "full_text";

export interface RetrievedHits {
  hits: SearchHit[];
  retrieval: Retrieval;
}

// Each list contributes this many candidates before fusion, so a memory found only by meaning
// can still rank in a short result list.
const CANDIDATES = 50;

/**
 * Memory search as every front uses it: full-text search, fused by reciprocal rank with the
 * memories nearest in meaning when this mind has vectors; full-text alone otherwise, or when
 * embedding the query fails or is over budget. The score of a fused hit is its fusion score.
 */
export async function retrieveMemories(deps: Deps, scope: Scope, options: SearchOptions): Promise<RetrievedHits> {
  if (!deps.semantic) return { hits: await searchMemories(deps, scope, options), retrieval: "full_text" };
  const candidates = Math.max(options.limit, CANDIDATES);
  const [lexical, meaning] = await Promise.all([
    searchMemories(deps, scope, { ...options, limit: candidates }),
    searchByMeaning(deps, scope, options.q, candidates),
  ]);
  if (meaning === null) return { hits: lexical.slice(0, options.limit), retrieval: "full_text" };
  const filtered = meaning.filter(
    (m) => (options.category === undefined || m.category === options.category) && (options.tag === undefined || m.tags.includes(options.tag)),
  );
  const fused = reciprocalRankFusion([lexical.map((h) => h.memory), filtered], (m) => m.id);
  return { hits: fused.slice(0, options.limit).map(({ item, score }) => ({ memory: item, score })), retrieval: "hybrid" };
}
