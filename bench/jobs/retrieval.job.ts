import { env } from "cloudflare:workers";
import { it } from "vitest";
import { openAiCompatibleEmbedder } from "../../src/embeddings/providers";
import { retrieveMemories } from "../../src/memory/hybrid-search";
import { searchMemories } from "../../src/memory/search";
import { EMBED_BATCH, embedPending } from "../../src/memory/semantic";
import { memoryIndex } from "../../test/support/semantic";
import type { Conversation } from "../lib/dataset";
import { scoreRetrieval, type Ranking, type RetrievalScore } from "../lib/metrics";
import { columns, columnWeights, feedbackTerms, fuse, matchExpression, orExpression, VARIANTS, type Variant } from "./ablation";
import { benchDeps, ingestConversation, inMind, newMindScope } from "./bench-deps";
import { progress, report } from "./report";

const DEPTH = 50;
const input = env.BENCH_INPUT as {
  conversations: Conversation[];
  groups: Record<string, string[]>;
  embeddings: { baseUrl: string; model: string; apiKey?: string } | null;
};

/** Scores of each group of conversations (all, tuning, held out). */
const byGroup = (rankings: Map<string, Ranking[]>) =>
  Object.fromEntries(Object.entries(input.groups).map(([g, ids]) => [g, scoreRetrieval(ids.flatMap((id) => rankings.get(id) ?? []))]));

/** Each conversation in its own mind through storeMemory, then every question through searchMemories. */
async function edgemind() {
  const deps = benchDeps();
  const rankings = new Map<string, Ranking[]>();
  const writeMs: number[] = [];
  for (const conversation of input.conversations) {
    const scope = await newMindScope(conversation.id, deps);
    writeMs.push(...(await ingestConversation(deps, scope, conversation)));
    const ranked: Ranking[] = [];
    for (const q of conversation.questions) {
      const hits = await searchMemories(inMind(deps, scope), { q: q.text, limit: DEPTH });
      ranked.push({ category: q.category, evidence: q.evidence, ranked: hits.map((h) => h.memory.key) });
    }
    rankings.set(conversation.id, ranked);
    progress(`edgemind: ${conversation.id} (${conversation.turns.length} turns, ${conversation.questions.length} questions)`);
  }
  return {
    score: scoreRetrieval([...rankings.values()].flat()),
    groups: byGroup(rankings),
    ingest: { turns: writeMs.length, totalMs: writeMs.reduce((a, b) => a + b, 0) },
  };
}

/**
 * The same, with recall by meaning: every memory embedded through the product's embedding path
 * (an OpenAI-compatible endpoint, an in-memory index standing in for Vectorize), every question
 * through retrieveMemories, which fuses full text and meaning as GET /memory/search does.
 */
async function hybrid(embeddings: NonNullable<typeof input.embeddings>) {
  const semantic = { embedder: openAiCompatibleEmbedder(embeddings.baseUrl, embeddings.model, embeddings.apiKey), index: memoryIndex() };
  const deps = { ...benchDeps(), semantic };
  const rankings: Ranking[] = [];
  let fused = 0;
  for (const conversation of input.conversations) {
    const scope = await newMindScope(`${conversation.id}-hybrid`, deps);
    await ingestConversation(deps, scope, conversation);
    for (;;) {
      const done = await embedPending(inMind(deps, scope), scope.mind.id, EMBED_BATCH);
      if (done.failed + done.postponed > 0) throw new Error(`embedding failed for ${conversation.id}: not measured`);
      if (done.embedded === 0) break;
    }
    for (const q of conversation.questions) {
      const { hits, retrieval } = await retrieveMemories(inMind(deps, scope), { q: q.text, limit: DEPTH });
      if (retrieval === "hybrid") fused++;
      rankings.push({ category: q.category, evidence: q.evidence, ranked: hits.map((h) => h.memory.key) });
    }
    progress(`hybrid: ${conversation.id}`);
  }
  return { score: scoreRetrieval(rankings), model: embeddings.model, fusedQuestions: fused };
}

/** A raw FTS5 table per variant (no edgemind code path), queried with plain bm25. */
async function rawFts(v: Variant, table: string): Promise<Map<string, Ranking[]>> {
  await env.DB.exec(`create virtual table ${table} using fts5(conv unindexed, dia unindexed, body, date, near)`);
  const insert = env.DB.prepare(`insert into ${table}(conv, dia, body, date, near) values (?, ?, ?, ?, ?)`);
  for (const c of input.conversations) {
    const statements = c.turns.map((t, i) => {
      const cols = columns(v, c.turns, i);
      return insert.bind(c.id, t.id, cols.body, cols.date, cols.near);
    });
    for (let i = 0; i < statements.length; i += 500) await env.DB.batch(statements.slice(i, i + 500));
  }
  const [wb, wd, wn] = columnWeights(v);
  const query = env.DB.prepare(
    `select dia from ${table} where ${table} match ?1 and conv = ?2 order by bm25(${table}, 0, 0, ${wb}, ${wd}, ${wn}) limit ${DEPTH}`,
  );
  const rankings = new Map<string, Ranking[]>();
  for (const c of input.conversations) {
    const ofConversation: Ranking[] = [];
    rankings.set(c.id, ofConversation);
    const bodies = new Map(c.turns.map((t, i) => [t.id, columns(v, c.turns, i).body]));
    const documentFrequency = new Map<string, number>();
    for (const body of bodies.values()) for (const term of new Set(body.split(" "))) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    for (const q of c.questions) {
      const match = matchExpression(v, q.text);
      const rows = match === null ? [] : (await query.bind(match, c.id).all<{ dia: string }>()).results;
      let ranked = rows.map((r) => r.dia);
      if (v.feedback && match !== null && ranked.length > 0) {
        const asked = match.split(" OR ").map((t) => t.slice(1, -1).replaceAll('""', '"'));
        const extra = feedbackTerms(asked, ranked.map((id) => bodies.get(id) ?? ""), documentFrequency, bodies.size);
        if (extra.length > 0) {
          const second = (await query.bind(orExpression([...asked, ...extra]), c.id).all<{ dia: string }>()).results;
          ranked = fuse(ranked, second.map((r) => r.dia), DEPTH);
        }
      }
      ofConversation.push({ category: q.category, evidence: q.evidence, ranked });
    }
  }
  // Twelve full-text tables of every turn at once have crashed workerd: keep one at a time.
  await env.DB.exec(`drop table ${table}`);
  return rankings;
}

it("retrieval on LoCoMo", async () => {
  const product = await edgemind();
  // The product's figures as soon as they are known; the raw FTS5 ablation takes longer.
  progress(`edgemind recall ${JSON.stringify(product.score.recall)}, NDCG@10 ${product.score.ndcg10}`);
  const fused = input.embeddings ? await hybrid(input.embeddings) : null;
  const variants: { name: string; group: string; score: RetrievalScore; groups: Record<string, RetrievalScore> }[] = [];
  const all = [...VARIANTS.ladder.map((v) => ({ v, group: "ladder" })), ...VARIANTS.leaveOneOut.map((v) => ({ v, group: "leave-one-out" }))];
  for (const [i, { v, group }] of all.entries()) {
    const rankings = await rawFts(v, `bench_fts_${i}`);
    variants.push({ name: v.name, group, score: scoreRetrieval([...rankings.values()].flat()), groups: byGroup(rankings) });
    progress(`raw FTS5 variant ${i + 1}/${all.length}: ${v.name}`);
  }
  report({ edgemind: product, hybrid: fused, variants });
});
