import type { z } from "zod";
import type { ChatRow, MessageRow } from "../db/schema";
import { DEFAULT_AGENT, type Scope } from "../tenancy/principal";
import { CHAT_KINDS, type chatRecord, type messageRecord, ROLES, type sessionRecord } from "./fields";

export { CHAT_KINDS, ROLES };
export type ChatKind = (typeof CHAT_KINDS)[number];
export type Role = (typeof ROLES)[number];

/** The chat an API client lands in when it names none. */
export const DEFAULT_CHAT = "default";
/**
 * The task a chat starts in (and goes back to when its active task is deleted), stored under one
 * name whatever language the people in the chat speak; a front shows it in the reader's.
 */
export const DEFAULT_TASK = "main";
/** Longest message content, in characters. */
export const MAX_MESSAGE_CHARS = 32_000;

/** A chat, a session and a message as every front shows them: their one shape is fields.ts'. */
export type Chat = z.output<typeof chatRecord>;
export type Session = z.output<typeof sessionRecord>;
export type Message = z.output<typeof messageRecord>;

/** A message as a front hands it in; `model` has already become `assistant`. */
export interface NewMessage {
  role: Role;
  content: string;
  ephemeral?: boolean;
  tool?: string | null;
  transaction_completed?: boolean;
}

/**
 * All a chat, session or message function needs of the caller: its mind, the namespace new
 * chats go to, and the namespace reads are limited to (null: all). Chats and sessions belong
 * to a namespace like memories and notes: a key scoped to one reaches only its own.
 */
export type MindScope = Pick<Scope, "mindId" | "agent" | "agentFilter">;

/** Which session of which mind a session object works for. */
export interface SessionTarget {
  mindId: string;
  sessionId: string;
  /** The database holding the mind's data, as the caller's mind context says; absent, it is looked up. */
  shard?: string;
}

// API chat names are unique per namespace, while the table's UNIQUE (mind, kind, external id)
// predates namespaces: outside the default namespace the stored id carries it. Chat names
// cannot hold control characters, so the separator never comes from a name.
const NAMESPACE_SEPARATOR = "\u001f";

/** The external id stored for a chat of this name in this namespace. */
export const storedExternalId = (agent: string, name: string) =>
  agent === DEFAULT_AGENT ? name : `${agent}${NAMESPACE_SEPARATOR}${name}`;

/** The chat's name as its namespace's clients gave it. */
export const shownExternalId = (agent: string, stored: string) => {
  const prefix = `${agent}${NAMESPACE_SEPARATOR}`;
  return agent !== DEFAULT_AGENT && stored.startsWith(prefix) ? stored.slice(prefix.length) : stored;
};

export const toChat = (row: ChatRow): Chat => ({
  id: row.id,
  agent: row.agent,
  kind: row.kind,
  external_id: shownExternalId(row.agent, row.externalId),
  active_session_id: row.activeSessionId,
  created_at: row.createdAt,
});

export const toMessage = (row: Omit<MessageRow, "mindId" | "searchContent">): Message => ({
  id: row.id,
  session_id: row.sessionId,
  role: row.role,
  content: row.content,
  ephemeral: row.ephemeral,
  tool: row.tool,
  created_at: row.createdAt,
});

// Sessions store '' for "no repository" so the UNIQUE constraint sees it; the API says null.
export const storedRepoPath = (repoPath: string | null | undefined) => repoPath ?? "";
export const shownRepoPath = (stored: string) => (stored === "" ? null : stored);
