import { and, inArray } from "drizzle-orm";
import { inIdChunks } from "../db/client";
import { notes } from "../db/schema";
import { inScope } from "../memory/filters";
import { MEANING_WEIGHT, reciprocalRankFusion } from "../memory/fusion";
import { type Retrieval, type RetrievedHits, retrieveMemories } from "../memory/hybrid-search";
import { nearestRowIds, type QueryMeaning, queryMeaning } from "../memory/query-meaning";
import type { MindContext } from "../tenancy/mind-context";
import { type Note, searchNotes, toNote } from "./notes";

export interface RetrievedNotes {
  hits: { note: Note; score: number }[];
  retrieval: Retrieval;
}

// As for memories: each list brings this many candidates to the fusion.
const CANDIDATES = 50;

/**
 * Note search as every front uses it, the way memory search works: full-text search fused by
 * reciprocal rank with the notes nearest in meaning when this mind has note vectors; full-text
 * alone otherwise, or when embedding the query fails or is over budget. `meaning`: the query by
 * meaning a request's other searches share.
 */
export async function retrieveNotes(
  mindContext: MindContext, options: { q: string; limit: number; withContext?: boolean }, meaning: QueryMeaning = queryMeaning(mindContext, options.q, ["note"]),
): Promise<RetrievedNotes> {
  if (!mindContext.semantic) return { hits: await searchNotes(mindContext, options), retrieval: "full_text" };
  const candidates = Math.max(options.limit, CANDIDATES);
  const [lexical, nearest] = await Promise.all([
    searchNotes(mindContext, { ...options, limit: candidates }),
    nearestRowIds(mindContext, meaning, "note", candidates),
  ]);
  if (nearest === null) return { hits: lexical.slice(0, options.limit), retrieval: "full_text" };
  const found = await notesByIds(mindContext, nearest, options.withContext);
  const fused = reciprocalRankFusion([lexical.map((h) => h.note), found], (n) => n.id, [1, MEANING_WEIGHT]);
  return { hits: fused.slice(0, options.limit).map(({ item, score }) => ({ note: item, score })), retrieval: "hybrid" };
}

/** Memories and notes matching `q`, searched together: the query is embedded once for both. */
export async function retrieveMemoriesAndNotes(mindContext: MindContext, options: { q: string; limit: number }): Promise<{ memories: RetrievedHits; notes: RetrievedNotes }> {
  const meaning = queryMeaning(mindContext, options.q, ["memory", "note"]);
  const [memories, found] = await Promise.all([retrieveMemories(mindContext, options, meaning), retrieveNotes(mindContext, options, meaning)]);
  return { memories, notes: found };
}

/** The scope's notes among `ids`, in the order given: the index's answer checked in SQL. */
async function notesByIds({ shard, scope }: Pick<MindContext, "scope" | "shard">, ids: string[], withContext: boolean | undefined): Promise<Note[]> {
  const rows = await inIdChunks(ids, (chunk) => shard.select().from(notes).where(and(inArray(notes.id, chunk), inScope(scope, notes))));
  const byId = new Map(rows.map((row) => [row.id, withContext ? { ...toNote(row), context: row.context } : toNote(row)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
