import type { Endpoint } from "./endpoint";
import { LOCAL_MODEL, startLocalEmbeddings } from "./local-embeddings";

let local: Promise<Endpoint> | undefined;

/**
 * The OpenAI-compatible embeddings endpoint the hybrid rows embed with: the one the environment
 * names (EMBEDDINGS_BASE_URL, EMBEDDINGS_MODEL, EMBEDDINGS_API_KEY), else a local English model
 * started once for the run (local-embeddings.ts).
 */
export function embeddingsEndpoint(): Promise<Endpoint> {
  const baseUrl = process.env.EMBEDDINGS_BASE_URL?.trim();
  if (baseUrl) return Promise.resolve({ baseUrl, model: process.env.EMBEDDINGS_MODEL?.trim() || "bge-m3", apiKey: process.env.EMBEDDINGS_API_KEY || undefined });
  return (local ??= startLocalEmbeddings());
}

/** The endpoint as the results name it. */
export const describeEndpoint = (e: Endpoint) =>
  e.model === LOCAL_MODEL
    ? `${LOCAL_MODEL}, run on this machine (bench/lib/local-embeddings.ts: English only, smaller than the bge-m3 a deployment uses)`
    : `${e.model} at ${e.baseUrl}`;
