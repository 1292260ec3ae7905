import type { Scope } from "../auth/principal";
import type { Deps } from "../deps";
import { readCold } from "../notes/cold-memory";
import type { Message } from "../sessions/model";
import { llmWindow } from "../sessions/windows";

export interface SessionContext {
  session_id: string;
  cold_memory: { text: string; version: number };
  /** The session's LLM window: its last non-ephemeral messages, oldest first. */
  messages: Message[];
  /** Everything above as one text to put before the model's next turn. */
  text: string;
}

/**
 * What an agent should have in its context for a session: the cold memory of its namespace
 * and the session's LLM window.
 */
export async function sessionContext(deps: Deps, scope: Scope, sessionId: string): Promise<SessionContext> {
  const window = await llmWindow(deps, scope, sessionId);
  const cold = await readCold(deps, scope);
  const parts = [];
  if (cold.text.trim() !== "") parts.push(`# Memory (version ${cold.version})\n${cold.text.trim()}`);
  if (window.length > 0) parts.push(`# Conversation\n${window.map((m) => `${m.role}: ${m.content}`).join("\n")}`);
  return {
    session_id: sessionId,
    cold_memory: { text: cold.text, version: cold.version },
    messages: window,
    text: parts.join("\n\n"),
  };
}
