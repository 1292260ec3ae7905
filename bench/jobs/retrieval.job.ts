import { env } from "cloudflare:workers";
import { it } from "vitest";
import { retrieveMemories } from "../../src/memory/hybrid-search";
import { searchMemories } from "../../src/memory/search";
import type { Conversation } from "../lib/dataset";
import type { Endpoint } from "../lib/endpoint";
import { type Ranking, scoreRetrieval } from "../lib/metrics";
import { benchDeps, embedMind, ingestConversation, inMind, newMindScope, semanticOver } from "./bench-deps";
import { progress, report } from "./report";

const DEPTH = 50;
const input = env.BENCH_INPUT as {
  conversations: Conversation[];
  groups: Record<string, string[]>;
  embeddings: Endpoint;
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
async function hybrid(embeddings: Endpoint) {
  const deps = { ...benchDeps(), semantic: semanticOver(embeddings) };
  const rankings = new Map<string, Ranking[]>();
  let fused = 0;
  for (const conversation of input.conversations) {
    const scope = await newMindScope(`${conversation.id}-hybrid`, deps);
    await ingestConversation(benchDeps(), scope, conversation);
    await embedMind(deps, scope);
    const ranked: Ranking[] = [];
    for (const q of conversation.questions) {
      const { hits, retrieval } = await retrieveMemories(inMind(deps, scope), { q: q.text, limit: DEPTH });
      if (retrieval === "hybrid") fused++;
      ranked.push({ category: q.category, evidence: q.evidence, ranked: hits.map((h) => h.memory.key) });
    }
    rankings.set(conversation.id, ranked);
    progress(`hybrid: ${conversation.id}`);
  }
  return { score: scoreRetrieval([...rankings.values()].flat()), groups: byGroup(rankings), model: embeddings.model, fusedQuestions: fused };
}

it("retrieval on LoCoMo", async () => {
  const product = await edgemind();
  progress(`edgemind recall ${JSON.stringify(product.score.recall)}, NDCG@10 ${product.score.ndcg10}`);
  report({ edgemind: product, hybrid: await hybrid(input.embeddings) });
});
