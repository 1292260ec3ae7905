// Recall by meaning is two ports: an embedder turning text into vectors, and a vector index
// holding one mind's vectors apart from every other mind's. A deployment without both keeps
// full-text search alone, exactly as before.

export interface Embedding {
  vectors: number[][];
  /** Input tokens the provider counted (or our own count where it reports none). */
  tokens: number;
}

export interface Embedder {
  /** Names the model in logs and the README's cost table. */
  readonly model: string;
  embed(texts: string[]): Promise<Embedding>;
}

export type VectorKind = "memory" | "note";

export interface VectorItem {
  id: string;
  vector: number[];
  kind: VectorKind;
  agent: string;
}

export interface VectorMatch {
  id: string;
  score: number;
}

/** Every call names the mind: an index never answers with another mind's vectors. */
export interface VectorIndex {
  upsert(mindId: string, items: VectorItem[]): Promise<void>;
  query(mindId: string, vector: number[], options: { topK: number; kind: VectorKind; agent: string | null }): Promise<VectorMatch[]>;
  remove(mindId: string, ids: string[]): Promise<void>;
  /** Writes these vectors of the mind again as upsert writes them now (an older layout's move); answers the ids it held. */
  rewrite(mindId: string, ids: string[]): Promise<string[]>;
}

/** Both ports, present only when the deployment has configured both. */
export interface Semantic {
  embedder: Embedder;
  index: VectorIndex;
}
