import { type Api, dataOf } from "./call.js";
import type { AgentOption, ColdInput, NoteInput, NoteSearchQuery, PageQuery } from "./types.js";

/** Notes: raw facts appended for the hourly consolidation into cold memory. */
export function notesResource(api: Api) {
  const at = (id: string) => ({ path: { id } });
  return {
    add: (input: NoteInput) => dataOf(api.POST("/notes", { body: input })),
    list: (query: PageQuery & AgentOption = {}) => dataOf(api.GET("/notes", { params: { query } })),
    search: (q: string, options: NoteSearchQuery = {}) => dataOf(api.GET("/notes/search", { params: { query: { q, ...options } } })),
    verify: (id: string) => dataOf(api.POST("/notes/{id}/verify", { params: at(id) })),
    delete: (id: string) => dataOf(api.DELETE("/notes/{id}", { params: at(id) })),
  };
}

/** Cold memory: the consolidated, versioned document of a namespace. */
export function coldResource(api: Api) {
  return {
    get: (options: AgentOption = {}) => dataOf(api.GET("/cold", { params: { query: options } })),
    /** Writes the document only if `version` is still current; otherwise fails with `memory_changed`. */
    put: (input: ColdInput, options: AgentOption = {}) => dataOf(api.PUT("/cold", { params: { query: options }, body: input })),
    versions: async (query: PageQuery & AgentOption = {}) => (await dataOf(api.GET("/cold/versions", { params: { query } }))).versions,
    version: (version: number, options: AgentOption = {}) =>
      dataOf(api.GET("/cold/versions/{version}", { params: { path: { version }, query: options } })),
    /** A line diff between two versions (0 is the empty document; `to` defaults to the current one). */
    diff: (from: number, to?: number, options: AgentOption = {}) =>
      dataOf(api.GET("/cold/diff", { params: { query: { from, ...(to === undefined ? {} : { to }), ...options } } })),
    /** Makes an earlier version's text the new current version. */
    rollback: (version: number, options: AgentOption = {}) =>
      dataOf(api.POST("/cold/rollback", { params: { query: options }, body: { version } })),
  };
}
