import type { VectorIndex } from "./ports";

// Vectorize holds at most 50,000 namespaces an index (1,000 on the free plan), so minds share
// them: a mind's vectors live in one of a fixed number of buckets chosen by a hash of its id,
// with the mind in metadata and in every query's filter. Vectorize applies the filter before
// taking the top K, so a query answers from this mind's vectors alone, however many other minds
// share its bucket. The `mind`, `kind` and `agent` properties each need a metadata index
// (README: Recall by meaning).

/** Buckets minds are spread over: half the free plan's namespace cap. Changing it strands every vector. */
export const VECTOR_BUCKETS = 500;
/** Ids a getByIds call asks for; Vectorize documents no bound, so a small one. */
const READ_BATCH = 20;

/** The part of the Vectorize binding the index uses. */
export type VectorizeBinding = Pick<Vectorize, "upsert" | "query" | "deleteByIds" | "getByIds">;

/** The namespace holding a mind's vectors: a stable hash (FNV-1a) of its id into `buckets`. */
export function bucketOf(mindId: string, buckets = VECTOR_BUCKETS): string {
  let h = 2166136261;
  for (const ch of mindId) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619);
  return `minds-${(h >>> 0) % buckets}`;
}

/** Vectorize with minds in shared namespaces, and the mind, kind and agent namespace as filterable metadata. */
export function vectorizeIndex(index: VectorizeBinding, buckets = VECTOR_BUCKETS): VectorIndex {
  return {
    async upsert(mindId, items) {
      if (items.length === 0) return;
      const namespace = bucketOf(mindId, buckets);
      await index.upsert(items.map((i) => ({ id: i.id, values: i.vector, namespace, metadata: { mind: mindId, kind: i.kind, agent: i.agent } })));
    },
    async query(mindId, vector, { topK, kind, agent }) {
      const filter: VectorizeVectorMetadataFilter = agent === null ? { mind: mindId, kind } : { mind: mindId, kind, agent };
      const answer = await index.query(vector, { topK, namespace: bucketOf(mindId, buckets), filter, returnMetadata: "none" });
      return answer.matches.map((m) => ({ id: m.id, score: m.score }));
    },
    async remove(_mindId, ids) {
      // Ids are unique across the index: a delete needs no namespace.
      if (ids.length > 0) await index.deleteByIds(ids);
    },
    async rewrite(mindId, ids) {
      const found: string[] = [];
      for (let i = 0; i < ids.length; i += READ_BATCH) {
        // Only vectors written for this mind: in its own namespace (the old layout) or marked with it.
        const held = (await index.getByIds(ids.slice(i, i + READ_BATCH))).filter((v) => v.namespace === mindId || v.metadata?.mind === mindId);
        if (held.length === 0) continue;
        const namespace = bucketOf(mindId, buckets);
        await index.upsert(held.map((v) => ({ id: v.id, values: v.values, namespace, metadata: { ...v.metadata, mind: mindId } })));
        found.push(...held.map((v) => v.id));
      }
      return found;
    },
  };
}
