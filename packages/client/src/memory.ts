import { type Api, answered, dataOf } from "./call.js";
import type { AgentOption, Memory, MemoryInput, MemoryListQuery, MemoryPatch, MemoryRecallQuery, MemorySearchQuery, PageQuery } from "./types.js";

type Include = { include?: "context" };

/** Structured memories: upsert by (category, key), search, recall, review and history. */
export function memoryResource(api: Api) {
  const at = (id: string) => ({ path: { id } });
  return {
    /** Stores a memory; the same category and key again updates it in place (`created: false`). */
    async store(input: MemoryInput, options: AgentOption = {}): Promise<{ memory: Memory; created: boolean }> {
      const { data, status } = await answered(api.POST("/memory", { params: { query: options }, body: input }));
      return { memory: data, created: status === 201 };
    },
    get: (id: string, options: Include & AgentOption = {}) => dataOf(api.GET("/memory/{id}", { params: { ...at(id), query: options } })),
    update: (id: string, patch: MemoryPatch, options: AgentOption = {}) =>
      dataOf(api.PUT("/memory/{id}", { params: { ...at(id), query: options }, body: patch })),
    list: (query: MemoryListQuery = {}) => dataOf(api.GET("/memory", { params: { query } })),
    /** Full-text search, best first (Russian and English word forms match). */
    search: (q: string, options: MemorySearchQuery = {}) => dataOf(api.GET("/memory/search", { params: { query: { q, ...options } } })),
    /** Plain-text recall, critical first then newest, within `max_tokens`; with its token count. */
    async recall(options: MemoryRecallQuery = {}): Promise<{ text: string; tokens: number }> {
      const { data, response } = await answered(api.GET("/memory/recall", { params: { query: options }, parseAs: "text" }));
      return { text: data, tokens: Number(response.headers.get("X-Token-Count") ?? 0) };
    },
    /** Unexpired memories carrying a whole tag, most important first. */
    byTag: async (tag: string, options: Pick<PageQuery, "limit"> & AgentOption = {}) =>
      (await dataOf(api.GET("/memory/by-tag", { params: { query: { tag, ...options } } }))).memories,
    /** Memories expiring within a duration (`30m`, `12h`, `7d`), soonest first. */
    expiring: async (within = "7d", options: Pick<PageQuery, "limit"> & AgentOption = {}) =>
      (await dataOf(api.GET("/memory/expiring", { params: { query: { within, ...options } } }))).memories,
    /** Every change of a memory, oldest first. */
    history: async (id: string) => (await dataOf(api.GET("/memory/{id}/history", { params: at(id) }))).history,
    /** A person confirms a memory (a human's token; a mind key is refused with `forbidden`). */
    verify: (id: string) => dataOf(api.POST("/memory/{id}/verify", { params: at(id) })),
    /** Deletes a memory; its history stays. */
    async forget(id: string): Promise<void> {
      await answered(api.DELETE("/memory/{id}", { params: at(id) }));
    },
  };
}
