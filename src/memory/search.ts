import { and, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import { isoNow } from "../clock";
import type { Db } from "../db/client";
import { memories } from "../db/schema";
import { logFailure } from "../observe/log";
import type { MindContext } from "../tenancy/mind-context";
import { afterLead, FEEDBACK_HITS, feedbackCandidates, feedbackTerms } from "./feedback";
import { hasTag, inScope, notExpired } from "./filters";
import { mindSearchToken, queryTerms } from "./normalize";
import { asksWhen, CANDIDATES_PER_HIT, rankByCoverage } from "./rerank";
import { type Category, type Memory, toMemoryWithContext } from "./rows";
import { statedLaterFirst } from "./stated-later";
import { expiryTime, inTime, type TimeView } from "./time";

/** What to search for; `asOf` and `includeSuperseded` (memory/time.ts) choose which statements count: by default those valid now. */
export interface SearchOptions extends TimeView {
  q: string;
  tag?: string;
  category?: Category;
  limit: number;
  /** Return each memory's context beside it. */
  withContext?: boolean;
  /** Ask again with the words the best hits share (pseudo-relevance feedback, ./feedback.ts). */
  feedback?: boolean;
}

export interface SearchHit {
  memory: Memory;
  score: number;
}

// bm25 weights of the indexed columns: key, content, tags, context. A memory's context (the
// dialogue around it, its document section) counts for half of its own words.
const COLUMN_WEIGHTS = sql.raw("bm25(memories_fts, 3.0, 1.0, 2.0, 0.5)");
// Priority multiplies relevance; age divides it, halving it over RECENCY_DAYS.
const PRIORITY_BOOST = sql`(case ${memories.priority} when 'critical' then 1.6 when 'high' then 1.3 when 'normal' then 1.0 else 0.8 end)`;
/** The largest factor PRIORITY_BOOST gives. */
const MAX_PRIORITY_BOOST = sql.raw("1.6");
// Written into the statement rather than bound: a long query's terms take most of D1's 100 parameters.
const RECENCY_DAYS = sql.raw("90.0");
// How many of the best hits by words alone are weighed first, per result asked for.
const LEAD_PER_RESULT = 25;

/** bm25's inverse document frequency, as FTS5 computes it (never below a millionth). */
const idf = (rows: number, holding: number) => Math.max(1e-6, Math.log((rows - holding + 0.5) / (holding + 0.5)));

/** An SQLite varint (FTS5's record format): 7 bits a byte, high bit set while more follow. */
function readVarint(bytes: Uint8Array): number {
  let value = 0;
  for (let i = 0; i < Math.min(bytes.length, 8); i++) {
    value = value * 128 + (bytes[i]! & 0x7f);
    if ((bytes[i]! & 0x80) === 0) return value;
  }
  return value;
}

/**
 * Each of the mind's query terms (token and stem) that some memory holds: its weight, and the
 * share of the mind's memories holding it. bm25 counts a term's documents within the mind (each
 * term is the mind's own) but the rows of the whole index; each term's score is scaled by the
 * mind's idf over the index's, so ranking is what bm25 gives on the mind alone. One statement: a vocabulary entry per term and two one-row reads,
 * whatever the database holds. Should the index's own records be unreadable, plain bm25 remains.
 */
async function mindTerms(shard: Db, mindId: string, terms: string[]): Promise<Map<string, { weight: number; share: number }>> {
  type Held = { term: string; doc: number; block: ArrayBuffer | number[] | null; mind_rows: number | null };
  let held: Held[];
  try {
    held = await shard.all<Held>(
      sql`select term, doc, (select block from memories_fts_data where id = 1) as block,
        (select memories from mind_usage where mind_id = ${mindId}) as mind_rows
        from memories_fts_terms where term in ${terms}`,
    );
  } catch (err) {
    logFailure("term_weights_unavailable", err, { mind: mindId });
    return new Map(terms.map((t) => [t, { weight: 1, share: 0 }]));
  }
  const block = held[0]?.block;
  const indexRows = block ? readVarint(new Uint8Array(block)) : 0;
  return new Map(
    held.map((t) => [
      t.term,
      { weight: indexRows > 0 ? idf(t.mind_rows ?? indexRows, t.doc) / idf(indexRows, t.doc) : 1, share: t.mind_rows ? t.doc / t.mind_rows : 0 },
    ]),
  );
}

// D1 accepts at most five selects in one compound; longer lists are nested five at a time.
const MAX_COMPOUND = 5;

/** The UNION ALL of the selects, nested so that no compound holds more than five. */
function unionAll(selects: SQL[]): SQL {
  if (selects.length <= MAX_COMPOUND) return sql.join(selects, sql` union all `);
  const groups: SQL[] = [];
  for (let i = 0; i < selects.length; i += MAX_COMPOUND) groups.push(sql`select * from (${unionAll(selects.slice(i, i + MAX_COMPOUND))})`);
  return unionAll(groups);
}

/**
 * Full-text search over key, content, tags and context, ranked by bm25 with priority and recency,
 * then by how many of the query's terms each memory holds (and, asked when, whether it names a
 * time), then among hits on one subject the one stated later first (stated-later.ts). A query
 * with no word in it finds nothing rather than failing. With `feedback`, two more
 * statements: the rarity of the best hits' words, and the search asked again with them
 * (feedback.ts).
 */
export async function searchMemories(mindContext: MindContext, options: SearchOptions): Promise<SearchHit[]> {
  const { shard, scope } = mindContext;
  const token = mindSearchToken(scope.mindId);
  const terms = queryTerms(options.q).map((t) => token + t);
  if (terms.length === 0) return [];
  const held = await mindTerms(shard, scope.mindId, terms);
  if (held.size === 0) return [];
  const weights = new Map([...held].map(([term, t]) => [term, t.weight]));
  let rows = await rankedRows(mindContext, options, weights, terms);
  if (options.feedback) {
    const lead = rows.slice(0, FEEDBACK_HITS);
    const candidates = feedbackCandidates(lead, new Set(terms), token);
    const more = candidates.size > 0 ? feedbackTerms(candidates, await mindTerms(shard, scope.mindId, [...candidates.keys()])) : new Map();
    if (more.size > 0) rows = afterLead(lead, await rankedRows(mindContext, options, new Map([...weights, ...more]), terms)).slice(0, options.limit);
  }
  return statedLaterFirst(
    rows.map(({ score, ...row }) => ({ memory: toMemoryWithContext(row, options.withContext), score })),
    options.q,
  );
}

/** The memories matching the weighted terms, ranked (bm25, priority, recency, then the question's terms held), cut to the limit. */
async function rankedRows({ shard, clock, scope }: MindContext, options: SearchOptions, weights: Map<string, number>, terms: string[]) {
  // One MATCH per term, each scaled by its weight and summed per memory: bm25 of the OR of the terms.
  const perTerm = [...weights].map(
    // The weight is written in, not bound: only the terms take D1's 100 parameters.
    ([term, weight]) => sql`select rowid, ${COLUMN_WEIGHTS} * ${sql.raw(String(weight))} as score from memories_fts where memories_fts match ${`"${term}"`}`,
  );
  const now = isoNow(clock);
  const ranked = (words: SQL) => sql<number>`(${words} * ${PRIORITY_BOOST} / (1.0 + (julianday(${now}) - julianday(${memories.updatedAt})) / ${RECENCY_DAYS}))`;
  const wanted = and(
    inScope(scope),
    notExpired(expiryTime(options, now)),
    inTime(options),
    options.category && eq(memories.category, options.category),
    options.tag !== undefined ? hasTag(options.tag) : undefined,
  )!;
  const fetched = options.limit * CANDIDATES_PER_HIT;
  const hits = candidateHits({ perTerm, ranked, wanted, now, mindId: scope.mindId, limit: fetched });
  const relevance = ranked(sql`hits.words`);
  // The hits lead the join: led by the memories, SQLite would walk every memory of the mind
  // (its mind_id index) and probe the hits for each.
  const rows = await shard
    .select({ ...getTableColumns(memories), score: relevance })
    .from(hits)
    .crossJoin(memories)
    .where(and(sql`${memories}.rowid = hits.rowid`, wanted))
    .orderBy(sql`${relevance} desc`)
    .limit(fetched);
  return rankByCoverage(rows, terms, options.limit, asksWhen(options.q) ? mindSearchToken(scope.mindId) : undefined);
}

/**
 * The hits (rowid, words: their bm25 score) that can reach the first (limit) results. Every hit
 * when needed, but first the best LEAD_PER_RESULT × limit by words alone: no hit outside them
 * can outrank the limit-th of them once priority and recency are applied (words × the largest
 * priority boost × the recency of the mind's newest memory falls short), and then they are the
 * only hits the memories are read for. Ranking is the same either way; only the reads differ.
 */
function candidateHits(q: { perTerm: SQL[]; ranked: (words: SQL) => SQL<number>; wanted: SQL; now: string; mindId: string; limit: number }): SQL {
  const lead = LEAD_PER_RESULT * q.limit;
  // "limit -1" keeps SQLite from folding bm25 into the sum, where FTS5 cannot compute it. Not
  // materialized: when the lead settles the answer, the hits are walked once, by the lead.
  // `settled` leads each branch, so the branch not taken reads no row.
  return sql`(with hits as not materialized (select rowid, -sum(score) as words from (${unionAll(q.perTerm)} limit -1) group by rowid),
    lead as (select rowid, words from hits order by words desc limit ${lead}),
    edge as (select min(words) as words, count(*) as n from lead),
    bar as (select min(score) as score, count(*) as n from (select ${q.ranked(sql`lead.words`)} as score
      from lead cross join ${memories} where ${memories}.rowid = lead.rowid and ${q.wanted} order by score desc limit ${q.limit})),
    ceiling as (select ${MAX_PRIORITY_BOOST} / (1.0 + (julianday(${q.now}) - julianday(max(${memories.updatedAt}))) / ${RECENCY_DAYS}) as boost
      from ${memories} where ${memories.mindId} = ${q.mindId}),
    settled as (select coalesce(edge.n < ${lead} or (bar.n >= ${q.limit} and ceiling.boost > 0 and edge.words * ceiling.boost < bar.score), 0) as yes
      from edge, bar, ceiling)
    select lead.rowid as rowid, lead.words as words from settled cross join lead where settled.yes
    union all
    select hits.rowid as rowid, hits.words as words from settled cross join hits where not settled.yes) as hits`;
}
