import type { MindContext } from "../minds/context";
import { and, eq, getTableColumns, sql } from "drizzle-orm";
import type { Scope } from "../auth/principal";
import { isoNow } from "../clock";
import { memories } from "../db/schema";
import type { Deps } from "../deps";
import { hasTag, inScope, notExpired } from "./filters";
import { toMemoryWithContext, type Category, type Memory } from "./model";
import { toMatchExpression } from "./normalize";

export interface SearchOptions {
  q: string;
  tag?: string;
  category?: Category;
  limit: number;
  /** Return each memory's context beside it. */
  withContext?: boolean;
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
const RECENCY_DAYS = 90;

/**
 * Full-text search over key, content, tags and context, ranked by bm25 with priority and recency.
 * A query with no word in it finds nothing rather than failing.
 */
export async function searchMemories({ db, clock, scope }: MindContext, options: SearchOptions): Promise<SearchHit[]> {
  const match = toMatchExpression(scope.mindId, options.q);
  if (match === null) return [];
  const now = isoNow(clock);
  const relevance = sql<number>`(-${COLUMN_WEIGHTS} * ${PRIORITY_BOOST} / (1.0 + (julianday(${now}) - julianday(${memories.updatedAt})) / ${RECENCY_DAYS}))`;
  const rows = await db
    .select({ ...getTableColumns(memories), score: relevance })
    .from(memories)
    .innerJoin(sql`memories_fts`, sql`memories_fts.rowid = ${memories}.rowid`)
    .where(
      and(
        sql`memories_fts match ${match}`,
        inScope(scope),
        notExpired(now),
        options.category && eq(memories.category, options.category),
        options.tag !== undefined ? hasTag(options.tag) : undefined,
      ),
    )
    .orderBy(sql`${relevance} desc`)
    .limit(options.limit);
  return rows.map(({ score, ...row }) => ({ memory: toMemoryWithContext(row, options.withContext), score }));
}
