import { sql } from "drizzle-orm";
import type { Semantic, VectorKind } from "../embeddings/ports";
import { AppError } from "../errors";
import { assertWithinBudget, recordUsageLater } from "../llm/ledger";
import { logFailure } from "../observe/log";
import { type MindContext, tokenAccountOf } from "../tenancy/mind-context";
import { MAX_TEXT_CHARS, MAX_TOP_K, SHARED_LAYOUT } from "./vectors";

// The query side of recall by meaning. One request's searches (memories and notes, in a context
// assembly or a combined search) share one QueryMeaning: which kinds have vectors is read once
// and the query embedded once, started beside the searches' first full-text reads. The usage
// ledger's write goes with the request's deferred work, so a search never waits on the primary.

const QUERY_TOP_K = 50;

/** A request's query by meaning, shared by its searches. */
export interface QueryMeaning {
  /** The query's vector for searching `kind`; null when that kind has no vectors, over budget, or the embedder failed. */
  vectorFor(kind: VectorKind): Promise<number[] | null>;
}

const NO_MEANING: QueryMeaning = { vectorFor: async () => null };

/**
 * The query `q` by meaning for searches of `kinds`: the first search to ask reads which of them
 * have vectors in this mind and, if any does, embeds the query, once; later asks share both.
 */
export function queryMeaning(mindContext: MindContext, q: string, kinds: readonly VectorKind[]): QueryMeaning {
  const semantic = mindContext.semantic;
  if (!semantic || q.trim() === "" || kinds.length === 0) return NO_MEANING;
  let embedded: Promise<{ present: Set<VectorKind>; vector: number[] | null }> | undefined;
  const embed = async () => {
    // Which kinds have vectors and what the budget leaves are read together, before any embedding.
    const [present, budget] = await Promise.all([
      kindsWithVectors(mindContext, kinds),
      checked(assertWithinBudget(mindContext, tokenAccountOf(mindContext))),
    ]);
    return { present, vector: present.size === 0 ? null : await embedQuery(mindContext, semantic, q, budget) };
  };
  return {
    async vectorFor(kind) {
      const { present, vector } = await (embedded ??= embed());
      return present.has(kind) ? vector : null;
    },
  };
}

/**
 * Ids of the scope's rows of one kind nearest in meaning to the query, best first, as the index
 * answers (not yet checked in SQL); null when recall by meaning is not available for that kind.
 */
export async function nearestRowIds(mindContext: Pick<MindContext, "scope" | "semantic">, meaning: QueryMeaning, kind: VectorKind, limit: number): Promise<string[] | null> {
  const { semantic, scope } = mindContext;
  const vector = semantic ? await meaning.vectorFor(kind) : null;
  if (!semantic || vector === null) return null;
  const topK = Math.min(MAX_TOP_K, Math.max(limit, QUERY_TOP_K));
  const matches = await semantic.index.query(scope.mindId, vector, { topK, kind, agent: scope.agentFilter });
  return matches.map((m) => m.id);
}

/** The kinds among `kinds` this mind has at least one vector of where queries look (not one left to move): one read. */
async function kindsWithVectors(mindContext: Pick<MindContext, "scope" | "shard">, kinds: readonly VectorKind[]): Promise<Set<VectorKind>> {
  const mindId = mindContext.scope.mindId;
  const checks = kinds.map(
    (kind) => sql`select ${kind} as kind where exists (select 1 from embeddings where mind_id = ${mindId} and kind = ${kind} and state = 'done' and vector_layout = ${SHARED_LAYOUT})`,
  );
  const rows = await mindContext.shard.all<{ kind: VectorKind }>(sql.join(checks, sql` union all `));
  return new Set(rows.map((row) => row.kind));
}

/** The query's vector; null (full text alone) when the budget check failed or the embedder fails. */
async function embedQuery(mindContext: MindContext, semantic: Semantic, q: string, budget: Checked): Promise<number[] | null> {
  const account = tokenAccountOf(mindContext);
  try {
    if (!budget.ok) throw budget.error;
    const result = await semantic.embedder.embed([q.slice(0, MAX_TEXT_CHARS)]);
    await recordUsageLater(mindContext, account, "embedding", { inputTokens: result.tokens, outputTokens: 0 }, false);
    return result.vectors[0]!;
  } catch (err) {
    if (!(err instanceof AppError)) await recordUsageLater(mindContext, account, "embedding", { inputTokens: 0, outputTokens: 0 }, true);
    logFailure("query_embedding_failed", err, { mind: account.mindId });
    return null;
  }
}

type Checked = { ok: true } | { ok: false; error: unknown };

/** A check run beside another read, what it threw kept to be handled after both. */
const checked = (check: Promise<void>): Promise<Checked> =>
  check.then(
    () => ({ ok: true }),
    (error: unknown) => ({ ok: false, error }),
  );
