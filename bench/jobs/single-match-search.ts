import { and, getTableColumns, sql } from "drizzle-orm";
import { isoNow } from "../../src/clock";
import { memories } from "../../src/db/schema";
import { inScope, notExpired } from "../../src/memory/filters";
import { toMatchExpression } from "../../src/memory/normalize";
import type { MindContext } from "../../src/tenancy/mind-context";

/**
 * The memory search the product ran before each term was weighed by the mind's own idf: one
 * MATCH of the OR of the mind's terms, bm25 over the index's counts, joined to the memories with
 * priority and recency. Kept as the yardstick for the product's search latency.
 */
export async function singleMatchSearch({ shard: db, clock, scope }: MindContext, options: { q: string; limit: number }) {
  const match = toMatchExpression(scope.mindId, options.q);
  if (match === null) return [];
  const now = isoNow(clock);
  const relevance = sql<number>`(-bm25(memories_fts, 3.0, 1.0, 2.0, 0.5) * (case ${memories.priority} when 'critical' then 1.6 when 'high' then 1.3 when 'normal' then 1.0 else 0.8 end) / (1.0 + (julianday(${now}) - julianday(${memories.updatedAt})) / 90))`;
  return db
    .select({ ...getTableColumns(memories), score: relevance })
    .from(memories)
    .innerJoin(sql`memories_fts`, sql`memories_fts.rowid = ${memories}.rowid`)
    .where(and(sql`memories_fts match ${match}`, inScope(scope), notExpired(now)))
    .orderBy(sql`${relevance} desc`)
    .limit(options.limit);
}
