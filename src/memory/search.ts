import { and, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import { isoNow } from "../clock";
import { memories } from "../db/schema";
import type { MindContext } from "../tenancy/mind-context";
import { askedTime } from "./asked-time";
import { afterLead, FEEDBACK_HITS, feedbackCandidates, feedbackTerms } from "./feedback";
import { hasTag, inScope, notExpired } from "./filters";
import { mindSearchToken, queryTerms } from "./normalize";
import { idf, relevance, type WeighedTerm } from "./relevance";
import { asksWhen, CANDIDATES_PER_HIT, MIN_CANDIDATES, rerank } from "./rerank";
import { type Category, type Memory, toMemoryWithContext } from "./rows";
import { type TermStats, termStats } from "./term-stats";
import { expiryTime, inTime, statedAt, type TimeView } from "./time";

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

// bm25 weights of the indexed columns (key, content, tags, context) that choose the candidates,
// and bm25 of the context alone, from which relevance.ts reads how often a term stands there.
const COLUMN_WEIGHTS = sql.raw("bm25(memories_fts, 3.0, 1.0, 2.0, 0.5)");
const CONTEXT_ONLY = sql.raw("bm25(memories_fts, 0.0, 0.0, 0.0, 1.0)");
// Terms in a memory's indexed context (its terms are space separated).
const CONTEXT_TERMS = sql<number>`(length(${memories.searchContext}) - length(replace(${memories.searchContext}, ' ', '')) + (${memories.searchContext} <> ''))`;
// How many of the best hits by words alone are read first, per candidate.
const LEAD_PER_CANDIDATE = 6;

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
 * Full-text search over key, content, tags and context: the best candidates by FTS5's bm25,
 * scored again by relevance.ts (BM25F) and looked at again by rerank.ts (the question's terms
 * held, when, the newer statement first). A query with no word in it finds nothing rather than
 * failing. With `feedback`, two more statements: the rarity of the best hits' words, and the
 * search asked again with them (feedback.ts).
 */
export async function searchMemories(mindContext: MindContext, options: SearchOptions): Promise<SearchHit[]> {
  const { shard, scope } = mindContext;
  const token = mindSearchToken(scope.mindId);
  const terms = queryTerms(options.q).map((t) => token + t);
  if (terms.length === 0) return [];
  const stats = await termStats(shard, scope.mindId, terms);
  if (stats.terms.size === 0) return [];
  const asked = new Map([...stats.terms.keys()].map((t) => [t, 1]));
  let rows = await rankedRows(mindContext, options, asked, stats);
  if (options.feedback) {
    const lead = rows.slice(0, FEEDBACK_HITS);
    const candidates = feedbackCandidates(lead, new Set(terms), token);
    const found = candidates.size > 0 ? await termStats(shard, scope.mindId, [...candidates.keys()]) : undefined;
    const more = found ? feedbackTerms(candidates, found.terms) : new Map<string, number>();
    if (found && more.size > 0) {
      const all = { terms: new Map([...stats.terms, ...found.terms]), index: stats.index };
      rows = afterLead(lead, await rankedRows(mindContext, options, new Map([...asked, ...more]), all, new Set(asked.keys()))).slice(0, options.limit);
    }
  }
  return rows.map(({ score, ...row }) => ({ memory: toMemoryWithContext({ ...row, context: row.context ?? "", searchContext: "" }, options.withContext), score }));
}

/**
 * The memories matching the terms, each at its weight in the query (the question's own at 1,
 * feedback's at theirs), best first, cut to the limit. `own`: the question's own terms, which the
 * second look weighs (all of them unless given).
 */
async function rankedRows(mindContext: MindContext, options: SearchOptions, weights: Map<string, number>, stats: TermStats, own?: Set<string>) {
  const weighed: WeighedTerm[] = [...weights].map(([term, weight]) => ({ term, weight, memories: stats.terms.get(term)?.memories ?? 1 }));
  const rows = await candidateRows(mindContext, options, weighed.map((t) => ({ term: t.term, weight: t.weight * (stats.terms.get(t.term)?.weight ?? 1) })));
  const scored = rows.map(({ words, contextScores, contextTerms, ...row }) => ({
    ...row,
    score: stats.index.indexRows > 0 ? relevance({ ...row, contextTerms, contextScores: parseScores(contextScores) }, weighed, stats.index) : words,
  }));
  const question = new Map(weighed.filter((t) => !own || own.has(t.term)).map((t) => [t.term, idf(stats.index.mindRows, t.memories)]));
  const whenToken = asksWhen(options.q) ? mindSearchToken(mindContext.scope.mindId) : undefined;
  return rerank(scored, { terms: question, limit: options.limit, whenToken, span: askedTime(options.q, mindContext.clock.now()) });
}

/** "index:score index:score", as the candidates' statement writes each term's score of the context. */
function parseScores(text: string | null): Map<number, number> {
  const scores = new Map<number, number>();
  for (const pair of text ? text.split(" ") : []) {
    const [index, score] = pair.split(":");
    scores.set(Number(index), Number(score));
  }
  return scores;
}

// A memory's stored columns as a candidate carries them: everything but the context and its index copy.
const { context: _context, searchContext: _searchContext, ...CANDIDATE_COLUMNS } = getTableColumns(memories);

/**
 * The best candidates (CANDIDATES_PER_HIT per hit asked for, at least MIN_CANDIDATES) by FTS5's
 * bm25 of the OR of the terms, each term scaled by its weight, with the statistics relevance.ts
 * needs: each term's bm25 of the context alone and the context's length. One statement.
 */
async function candidateRows({ shard, clock, scope }: MindContext, options: SearchOptions, terms: { term: string; weight: number }[]) {
  // One MATCH per term; weights and term numbers are written in, not bound: only the terms take D1's 100 parameters.
  const perTerm = terms.map(
    ({ term, weight }, i) =>
      sql`select rowid, ${COLUMN_WEIGHTS} * ${sql.raw(String(weight))} as score, ${sql.raw(String(i))} as term, -${CONTEXT_ONLY} as context
        from memories_fts where memories_fts match ${`"${term}"`}`,
  );
  const wanted = and(
    inScope(scope),
    notExpired(expiryTime(options, isoNow(clock))),
    inTime(options),
    options.category && eq(memories.category, options.category),
    options.tag !== undefined ? hasTag(options.tag) : undefined,
  )!;
  const count = Math.max(MIN_CANDIDATES, options.limit * CANDIDATES_PER_HIT);
  return shard
    .select({
      ...CANDIDATE_COLUMNS,
      ...(options.withContext && { context: memories.context }),
      // When it was stated (time.ts): what "the newer statement first" and the tie-breakers read.
      statedAt,
      words: sql<number>`hits.words`,
      contextScores: sql<string | null>`hits.context_scores`,
      contextTerms: CONTEXT_TERMS,
    })
    .from(candidateHits(unionAll(perTerm), wanted, count))
    .crossJoin(memories)
    .where(and(sql`${memories}.rowid = hits.rowid`, wanted))
    .orderBy(sql`hits.words desc`)
    .limit(count);
}

/**
 * The hits (rowid, words: their bm25 score, context_scores) that can be among the first `count`
 * wanted memories by words: the best LEAD_PER_CANDIDATE × count when enough of them are wanted
 * (then only they are read beside their memories), every hit otherwise. The order is the same
 * either way; only the reads differ.
 */
function candidateHits(perTerm: SQL, wanted: SQL, count: number): SQL {
  const lead = LEAD_PER_CANDIDATE * count;
  // "limit -1" keeps SQLite from folding bm25 into the sum, where FTS5 cannot compute it. Not
  // materialized: when the lead settles the answer, the hits are walked once, by the lead.
  // `settled` leads each branch, so the branch not taken reads no row.
  return sql`(with hits as not materialized (select rowid, -sum(score) as words,
      group_concat(case when context > 0 then term || ':' || context end, ' ') as context_scores
      from (${perTerm} limit -1) group by rowid),
    lead as (select rowid, words, context_scores from hits order by words desc limit ${lead}),
    kept as (select count(*) as n from (select 1 from lead cross join ${memories} where ${memories}.rowid = lead.rowid and ${wanted} limit ${count})),
    settled as (select (select count(*) from lead) < ${lead} or kept.n >= ${count} as yes from kept)
    select lead.rowid as rowid, lead.words as words, lead.context_scores as context_scores from settled cross join lead where settled.yes
    union all
    select hits.rowid as rowid, hits.words as words, hits.context_scores as context_scores from settled cross join hits where not settled.yes) as hits`;
}
