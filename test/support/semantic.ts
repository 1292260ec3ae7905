import type { Deps } from "../../src/deps";
import type { Embedder, Semantic, VectorItem, VectorKind } from "../../src/embeddings/ports";
import { type VectorizeBinding, vectorizeIndex } from "../../src/embeddings/vectorize-index";
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

interface StoredVector {
  id: string;
  values: number[];
  namespace?: string;
  metadata: Record<string, VectorizeVectorMetadata>;
  /** The properties a metadata index covered when the vector was written: only those filter it. */
  indexed: Set<string>;
}

export interface FakeVectorizeOptions {
  /** Namespaces the index holds at most: 50,000 on Workers Paid. */
  namespaceCap?: number;
  /** Properties with a metadata index, as the README's setup creates them. */
  metadataIndexes?: string[];
  /** Ignores the namespace and the `mind` filter it is asked about, to prove SQL still guards tenancy. */
  leaky?: boolean;
}

const bytes = (text: string) => new TextEncoder().encode(text).length;

/**
 * An in-memory Vectorize binding refusing what Vectorize refuses (its documented limits): a
 * namespace past the cap, ids and namespaces over 64 bytes, topK over 100 (20 with values or
 * metadata returned); and, as Vectorize does, a filter matches only vectors written after a
 * metadata index on each filtered property existed.
 */
export function fakeVectorize(options: FakeVectorizeOptions = {}) {
  const cap = options.namespaceCap ?? 50_000;
  const metadataIndexes = new Set(options.metadataIndexes ?? ["mind", "kind", "agent"]);
  const vectors = new Map<string, StoredVector>();
  const namespaces = () => new Set([...vectors.values()].flatMap((v) => (v.namespace === undefined ? [] : [v.namespace])));
  const matchesFilter = (v: StoredVector, filter: VectorizeVectorMetadataFilter) =>
    Object.entries(filter).every(([property, wanted]) => {
      if (options.leaky && property === "mind") return true;
      if (wanted !== null && typeof wanted === "object") throw new Error("only equality filters are modelled");
      return v.indexed.has(property) && v.metadata[property] === wanted;
    });
  const binding = {
    vectors,
    createMetadataIndex(property: string) {
      metadataIndexes.add(property);
    },
    async upsert(batch: VectorizeVector[]): Promise<VectorizeAsyncMutation> {
      const held = namespaces();
      for (const v of batch) {
        if (bytes(v.id) > 64) throw new Error(`VECTOR_UPSERT_ERROR: id "${v.id}" is over 64 bytes`);
        if (v.namespace === undefined) continue;
        if (bytes(v.namespace) > 64) throw new Error(`VECTOR_UPSERT_ERROR: namespace "${v.namespace}" is over 64 bytes`);
        held.add(v.namespace);
        if (held.size > cap) throw new Error(`VECTOR_UPSERT_ERROR: the index holds at most ${cap} namespaces`);
      }
      for (const v of batch) {
        const metadata = v.metadata ?? {};
        const indexed = new Set(Object.keys(metadata).filter((p) => metadataIndexes.has(p)));
        vectors.set(v.id, { id: v.id, values: Array.from(v.values), namespace: v.namespace, metadata, indexed });
      }
      return { mutationId: `m${vectors.size}` };
    },
    async query(vector: VectorFloatArray | number[], opts: VectorizeQueryOptions = {}): Promise<VectorizeMatches> {
      const topK = opts.topK ?? 5;
      const returnsMore = opts.returnValues === true || (opts.returnMetadata !== undefined && opts.returnMetadata !== false && opts.returnMetadata !== "none");
      const max = returnsMore ? 20 : 100;
      if (topK > max) throw new Error(`VECTOR_QUERY_ERROR (code = 40025): max top K is ${max}, but got ${topK}`);
      const q = Array.from(vector);
      const matches = [...vectors.values()]
        .filter((v) => options.leaky || opts.namespace === undefined || v.namespace === opts.namespace)
        .filter((v) => opts.filter === undefined || matchesFilter(v, opts.filter))
        .map((v) => ({ id: v.id, score: v.values.reduce((sum, x, d) => sum + x * q[d]!, 0) }))
        .filter((m) => m.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, topK);
      return { matches, count: matches.length };
    },
    async deleteByIds(ids: string[]): Promise<VectorizeAsyncMutation> {
      for (const id of ids) vectors.delete(id);
      return { mutationId: `d${vectors.size}` };
    },
    async getByIds(ids: string[]): Promise<VectorizeVector[]> {
      return ids.flatMap((id) => {
        const v = vectors.get(id);
        return v ? [{ id: v.id, values: v.values, namespace: v.namespace, metadata: v.metadata }] : [];
      });
    },
  } satisfies VectorizeBinding & Record<string, unknown>;
  return binding;
}

/**
 * The deployment's vector index over an in-memory Vectorize binding; `vectorsOf` reads back what
 * a mind's vectors are. `buckets`: fewer shared namespaces than the deployment's, to reach a cap.
 */
export function memoryIndex(options: FakeVectorizeOptions & { buckets?: number } = {}) {
  const binding = fakeVectorize(options);
  const index = vectorizeIndex(binding, options.buckets);
  const vectorsOf = (mindId: string): Map<string, VectorItem> =>
    new Map(
      [...binding.vectors.values()]
        .filter((v) => v.metadata.mind === mindId)
        .map((v) => [v.id, { id: v.id, vector: v.values, kind: v.metadata.kind as VectorKind, agent: String(v.metadata.agent) }]),
    );
  return { ...index, binding, vectorsOf };
}

/** Domain dependencies with recall by meaning, and the work they deferred, to await. */
export function semanticDeps(semantic: Semantic | null, base: Deps = testDeps()) {
  const deferred: Promise<unknown>[] = [];
  const deps: Deps = { ...base, semantic, defer: (work) => void deferred.push(work) };
  return { deps, settle: async () => { while (deferred.length > 0) await deferred.shift(); } };
}
