import type { Deps } from "../../src/deps";
import type { Embedder, Semantic, VectorIndex, VectorItem } from "../../src/embeddings/ports";
import { MAX_TOP_K } from "../../src/memory/vectors";
import { testDeps } from "./deps";

const DIMENSIONS = 64;

// A few words mapped to shared concepts, across Russian and English, standing in for what a
// multilingual model knows; every other word is its own concept.
const CONCEPTS: Record<string, string> = {
  кофе: "coffee", coffee: "coffee", drink: "coffee", drinks: "coffee", морнинг: "coffee", morning: "coffee", сахара: "sweet", sugar: "sweet",
  tea: "tea", чай: "tea",
  deploy: "release", deploys: "release", ship: "release", выкатывает: "release", release: "release",
};

function hash(word: string): number {
  let h = 2166136261;
  for (const ch of word) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619);
  return (h >>> 0) % DIMENSIONS;
}

/** A deterministic local embedder: a normalised bag of concepts. */
export function conceptEmbedder(options: { failQueries?: boolean; failWrites?: boolean } = {}): Embedder & { calls: number } {
  const embedder = {
    model: "test-concepts",
    calls: 0,
    async embed(texts: string[]) {
      embedder.calls++;
      if (options.failQueries && texts.length === 1 && !texts[0]!.includes(":")) throw new Error("embedder down");
      if (options.failWrites && texts.some((t) => t.includes(":"))) throw new Error("embedder down");
      const vectors = texts.map((text) => {
        const v = new Array<number>(DIMENSIONS).fill(0);
        for (const word of text.toLowerCase().match(/\p{L}+/gu) ?? []) v[hash(CONCEPTS[word] ?? word)]! += 1;
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      });
      return { vectors, tokens: texts.reduce((n, t) => n + t.split(/\s+/).length, 0) };
    },
  };
  return embedder;
}

/** An in-memory vector index. `leaky` ignores the mind it is asked about, to prove SQL still guards tenancy. */
export function memoryIndex(options: { leaky?: boolean } = {}): VectorIndex & { stored: Map<string, Map<string, VectorItem>> } {
  const stored = new Map<string, Map<string, VectorItem>>();
  const space = (mindId: string) => stored.get(mindId) ?? stored.set(mindId, new Map()).get(mindId)!;
  return {
    stored,
    async upsert(mindId, items) {
      for (const item of items) space(mindId).set(item.id, item);
    },
    async query(mindId, vector, { topK, kind, agent }) {
      // As Vectorize does: a query without values or metadata returns at most 100 matches.
      if (topK > MAX_TOP_K) throw new Error(`VECTOR_QUERY_ERROR: topK ${topK} is over ${MAX_TOP_K}`);
      const candidates = options.leaky ? [...stored.values()].flatMap((m) => [...m.values()]) : [...space(mindId).values()];
      return candidates
        .filter((i) => i.kind === kind && (agent === null || i.agent === agent))
        .map((i) => ({ id: i.id, score: i.vector.reduce((s, x, d) => s + x * vector[d]!, 0) }))
        .filter((m) => m.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, topK);
    },
    async remove(mindId, ids) {
      for (const id of ids) space(mindId).delete(id);
    },
  };
}

/** Domain dependencies with recall by meaning, and the work they deferred, to await. */
export function semanticDeps(semantic: Semantic | null, base: Deps = testDeps()) {
  const deferred: Promise<unknown>[] = [];
  const deps: Deps = { ...base, semantic, defer: (work) => void deferred.push(work) };
  return { deps, settle: async () => { while (deferred.length > 0) await deferred.shift(); } };
}
