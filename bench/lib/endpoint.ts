/** An OpenAI-compatible embeddings endpoint: what the hybrid rows embed with (embeddings.ts picks it). */
export interface Endpoint {
  baseUrl: string;
  model: string;
  apiKey?: string;
}
