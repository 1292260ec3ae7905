import { type Api, answered, dataOf } from "./call.js";
import type { ContextQuery, MessageInput, MessagesQuery, Session, SessionInput, SessionListQuery } from "./types.js";

/** Sessions: one isolated task per chat, its history, and the context a model gets for a turn. */
export function sessionsResource(api: Api) {
  const at = (id: string) => ({ path: { id } });
  return {
    /** Opens a task (the same chat, repo_path and task_name answer the existing one) and makes it active. */
    async create(input: SessionInput): Promise<{ session: Session; created: boolean }> {
      const { data, status } = await answered(api.POST("/sessions", { body: input }));
      return { session: data, created: status === 201 };
    },
    get: (id: string) => dataOf(api.GET("/sessions/{id}", { params: at(id) })),
    list: async (query: SessionListQuery = {}) => (await dataOf(api.GET("/sessions", { params: { query } }))).sessions,
    /** Appends a message; ephemeral tool output stays out of the model's window. */
    addMessage: (id: string, message: MessageInput) => dataOf(api.POST("/sessions/{id}/messages", { params: at(id), body: message })),
    /** `llm`: the model's window; `ui`: everything, ephemeral output included, paginated. */
    messages: (id: string, query: MessagesQuery = {}) => dataOf(api.GET("/sessions/{id}/messages", { params: { ...at(id), query } })),
    /** The context for a model turn: window, memories matching `q`, recall and cold memory within `max_tokens`. */
    context: (id: string, query: ContextQuery = {}) => dataOf(api.GET("/sessions/{id}/context", { params: { ...at(id), query } })),
    /** Answers "Done?": confirmed clears the session's ephemeral output; `false` keeps it. */
    done: (id: string, confirmed = true) => dataOf(api.POST("/sessions/{id}/complete", { params: at(id), body: { confirmed } })),
    delete: (id: string) => dataOf(api.DELETE("/sessions/{id}", { params: at(id) })),
    search: async (q: string, query: { session_id?: string; limit?: number } = {}) =>
      (await dataOf(api.GET("/sessions/search", { params: { query: { q, ...query } } }))).results,
  };
}
