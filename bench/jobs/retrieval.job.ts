import { env } from "cloudflare:workers";
import { it } from "vitest";
import { openAiCompatibleEmbedder } from "../../src/embeddings/providers";
import { retrieveMemories } from "../../src/memory/hybrid-search";
import { searchMemories } from "../../src/memory/search";
import { EMBED_BATCH, embedPending } from "../../src/embeddings/vectors";
import { memoryIndex } from "../../test/support/semantic";
import type { Conversation } from "../lib/dataset";
import { scoreRetrieval, type Ranking } from "../lib/metrics";
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

it("retrieval on LoCoMo", async () => {
  const product = await edgemind();
  progress(`edgemind recall ${JSON.stringify(product.score.recall)}, NDCG@10 ${product.score.ndcg10}`);
  const fused = input.embeddings ? await hybrid(input.embeddings) : null;
  report({ edgemind: product, hybrid: fused });
});
