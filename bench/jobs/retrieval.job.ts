import { env } from "cloudflare:workers";
import { it } from "vitest";
import type { Deps } from "../../src/deps";
import { retrieveMemories } from "../../src/memory/hybrid-search";
import { searchMemories } from "../../src/memory/search";
import type { MindContext } from "../../src/tenancy/mind-context";
import type { Conversation, Question } from "../lib/dataset";
import type { Endpoint } from "../lib/endpoint";
import { type Found, scoreLme, scoreLocomo } from "../lib/retrieval-scores";
import { benchDeps, embedMind, ingestConversation, inMind, newMindScope, semanticOver } from "./bench-deps";
import { progress, report } from "./report";

const DEPTH = 50;
const input = env.BENCH_INPUT as {
  /** How the rankings are scored: LoCoMo's ten conversations, or LongMemEval's sessions pooled in one. */
  set: "locomo" | "longmemeval";
  /** Each conversation is one mind. */
  conversations: Conversation[];
  /** LoCoMo's groups of conversations (all, tuning, held out). */
  groups: Record<string, string[]>;
  /** The embeddings endpoint of the hybrid rows; null leaves them out. */
  embeddings: Endpoint | null;
};

/** The rankings scored as their data set is. */
const scored = (found: Found) => (input.set === "locomo" ? scoreLocomo(input.conversations, found, input.groups) : scoreLme(input.conversations[0]!, found));

/** The context a question is asked in: at the moment the data set says it was asked, else now. */
const askedIn = <D extends Deps>(deps: D, scope: MindContext, q: Question) =>
  inMind(q.asked ? { ...deps, clock: { now: () => new Date(q.asked!) } } : deps, scope);

/** Each conversation in its own mind through storeMemory, then every question through searchMemories. */
async function edgemind() {
  const deps = benchDeps();
  const found: Found = [];
  const writeMs: number[] = [];
  for (const conversation of input.conversations) {
    const scope = await newMindScope(conversation.id, deps);
    writeMs.push(...(await ingestConversation(deps, scope, conversation)));
    const ranked: string[][] = [];
    for (const q of conversation.questions) ranked.push((await searchMemories(askedIn(deps, scope, q), { q: q.text, limit: DEPTH })).map((h) => h.memory.key));
    found.push(ranked);
    progress(`edgemind: ${conversation.id} (${conversation.turns.length} turns, ${conversation.questions.length} questions)`);
  }
  return { scores: scored(found), ingest: { turns: writeMs.length, totalMs: writeMs.reduce((a, b) => a + b, 0) } };
}

/**
 * The same, with recall by meaning: every memory embedded through the product's embedding path
 * (an OpenAI-compatible endpoint, an in-memory index standing in for Vectorize), every question
 * through retrieveMemories, which fuses full text and meaning as GET /memory/search does.
 */
async function hybrid(embeddings: Endpoint) {
  const deps = { ...benchDeps(), semantic: semanticOver(embeddings) };
  const found: Found = [];
  let fused = 0;
  for (const conversation of input.conversations) {
    const scope = await newMindScope(`${conversation.id}-hybrid`, deps);
    await ingestConversation(benchDeps(), scope, conversation);
    await embedMind(deps, scope);
    const ranked: string[][] = [];
    for (const q of conversation.questions) {
      const { hits, retrieval } = await retrieveMemories(askedIn(deps, scope, q), { q: q.text, limit: DEPTH });
      if (retrieval === "hybrid") fused++;
      ranked.push(hits.map((h) => h.memory.key));
    }
    found.push(ranked);
    progress(`hybrid: ${conversation.id}`);
  }
  return { scores: scored(found), model: embeddings.model, fusedQuestions: fused };
}

it("retrieval", async () => {
  const product = await edgemind();
  report({ edgemind: product, hybrid: input.embeddings ? await hybrid(input.embeddings) : null });
});
