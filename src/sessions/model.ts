import type { Scope } from "../auth/principal";
import type { ChatRow, MessageRow } from "../db/schema";

export const CHAT_KINDS = ["telegram", "api"] as const;
export type ChatKind = (typeof CHAT_KINDS)[number];

export const ROLES = ["user", "assistant", "tool", "system"] as const;
export type Role = (typeof ROLES)[number];

/** The chat an API client lands in when it names none. */
export const DEFAULT_CHAT = "default";
/** Longest message content, in characters. */
export const MAX_MESSAGE_CHARS = 32_000;

export interface Chat {
  id: string;
  kind: ChatKind;
  external_id: string;
  active_session_id: string | null;
  created_at: string;
}

export interface Session {
  id: string;
  chat: { id: string; kind: ChatKind; external_id: string };
  repo_path: string | null;
  task_name: string;
  conversation_id: string;
  active: boolean;
  message_count: number;
  extracted_through_message_id: number;
  created_at: string;
  last_message_at: string | null;
}

export interface Message {
  id: number;
  session_id: string;
  role: Role;
  content: string;
  ephemeral: boolean;
  tool: string | null;
  created_at: string;
}

/** A message as a front hands it in; `model` has already become `assistant`. */
export interface NewMessage {
  role: Role;
  content: string;
  ephemeral?: boolean;
  tool?: string | null;
  transaction_completed?: boolean;
}

/**
 * All a chat, session or message function needs of the caller: its mind. Sessions belong
 * to the mind, not to an agent namespace; fronts without a principal (the bot) pass { mindId }.
 */
export type MindScope = Pick<Scope, "mindId">;

/** Which session of which mind a session object works for. */
export interface SessionTarget {
  mindId: string;
  sessionId: string;
}

export const toChat = (row: ChatRow): Chat => ({
  id: row.id,
  kind: row.kind,
  external_id: row.externalId,
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
