import { z } from "zod";

// The one shape of chats, sessions, messages and a session's counters as every front shows
// them. The domain's types are inferred from these, and REST (with its OpenAPI document)
// derives its response schemas from them, so a field is declared, typed and described once.

export const CHAT_KINDS = ["telegram", "api"] as const;
export const ROLES = ["user", "assistant", "tool", "system"] as const;

/** A chat as shown: the agent namespace it and all its sessions belong to, and its active session. */
export const chatRecord = z.object({
  id: z.string(),
  agent: z.string(),
  kind: z.enum(CHAT_KINDS),
  external_id: z.string(),
  active_session_id: z.string().nullable(),
  created_at: z.string(),
});

/** A chat with how many sessions it holds (the session count shown before its date). */
export const chatSummaryRecord = z.object({
  ...chatRecord.omit({ created_at: true }).shape,
  session_count: z.number(),
  created_at: chatRecord.shape.created_at,
});

/** A session (a task in a chat) as shown. */
export const sessionRecord = z.object({
  id: z.string().meta({ example: "ses_01jq…" }),
  agent: z.string().describe("The agent namespace, its chat's"),
  chat: chatRecord.pick({ id: true, kind: true, external_id: true }),
  repo_path: z.string().nullable(),
  task_name: z.string(),
  conversation_id: z.string().describe("A UUID to hand to an engine"),
  active: z.boolean().describe("The active session of its chat"),
  message_count: z.number(),
  extracted_through_message_id: z.number(),
  created_at: z.string(),
  last_message_at: z.string().nullable(),
});

/** A message as shown; `model` was stored as `assistant`. */
export const messageRecord = z.object({
  id: z.number().int(),
  session_id: z.string(),
  role: z.enum(ROLES),
  content: z.string(),
  ephemeral: z.boolean(),
  tool: z.string().nullable(),
  created_at: z.string(),
});

/** A session's counters as shown (the session object keeps them). */
export const sessionStateRecord = z.object({
  messages_appended: z.number(),
  messages_since_extraction: z.number(),
  extraction_scheduled: z.boolean(),
  extraction_due: z.boolean(),
  extraction_due_at: z.string().nullable(),
  ephemeral_pending: z.boolean(),
  active_tool: z.string().nullable(),
  unrelated_since_tool: z.number(),
  completion_pending: z.boolean(),
});

/**
 * What one extraction over a session did. `quota`: the notes would pass one of the mind's
 * quotas, nothing was written and the cursor stays.
 */
export const sessionExtractionRecord = z.object({
  status: z.enum(["extracted", "nothing", "no_model", "budget", "quota", "failed", "not_found"]),
  notes: z.number().describe("New notes written"),
  extracted: z.number().nullable().describe("Messages the cursor moved past; null when it could not move"),
  remaining: z.number().describe("Non-ephemeral messages still after the cursor"),
  cursor: z.number().describe("Id of the last message extracted (0: none yet)"),
});

/** What appending a message did. */
export const appendResultRecord = z.object({
  message: messageRecord,
  /** This message's place in the session's appends: 1, 2, 3, … */
  sequence: z.number(),
  /** Ephemeral messages deleted by this append (TTL ran out or the tool changed). */
  cleared: z.number(),
  /** Oldest messages deleted to keep the history within `history_cap`. */
  trimmed: z.number(),
  transaction_completed: z.boolean(),
  state: sessionStateRecord,
});
