import type { components, paths } from "./generated/api.js";

type Schemas = components["schemas"];
type JsonBody<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { "application/json": infer B } };
}
  ? B
  : never;
type Query<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;

export type Memory = Schemas["Memory"];
export type Note = Schemas["Note"];
export type ColdMemory = Schemas["ColdMemory"];
export type ColdVersion = Schemas["ColdVersion"];
export type Session = Schemas["Session"];
export type SessionState = Schemas["SessionState"];
export type Message = Schemas["Message"];
export type Context = Schemas["Context"];
export type ArchiveImport = Schemas["ArchiveImport"];
export type ImportCounts = Schemas["ImportCounts"];
export type Webhook = Schemas["Webhook"];
export type WebhookWithSecret = Schemas["WebhookWithSecret"];
export type WebhookAttempt = Schemas["WebhookAttempt"];

/** What a write may send, and what a read may ask, as the routes declare them. */
export type MemoryInput = JsonBody<"/memory", "post">;
export type MemoryPatch = JsonBody<"/memory/{id}", "put">;
export type MemoryListQuery = Query<"/memory", "get">;
export type MemorySearchQuery = Omit<Query<"/memory/search", "get">, "q">;
export type MemoryRecallQuery = Query<"/memory/recall", "get">;
export type NoteInput = JsonBody<"/notes", "post">;
export type NoteSearchQuery = Omit<Query<"/notes/search", "get">, "q">;
export type ColdInput = JsonBody<"/cold", "put">;
export type SessionInput = JsonBody<"/sessions", "post">;
export type SessionListQuery = Query<"/sessions", "get">;
export type MessageInput = JsonBody<"/sessions/{id}/messages", "post">;
export type MessagesQuery = Query<"/sessions/{id}/messages", "get">;
export type ContextQuery = Query<"/sessions/{id}/context", "get">;
export type WebhookInput = JsonBody<"/minds/{id}/webhooks", "post">;
export type PageQuery = { limit?: number; offset?: number };
/** The agent namespace a call works in (`?agent=`): a human's reads default to all, writes to `default`. */
export type AgentOption = { agent?: string };
