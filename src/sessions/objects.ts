import type { SessionCounters } from "./counters";
import type { Message } from "./model";
import type { SessionObject } from "./session-object";

/** A session's object: one per session id, wherever it is asked for from. */
export function sessionObject(namespace: DurableObjectNamespace<SessionObject>, sessionId: string) {
  return namespace.get(namespace.idFromName(sessionId));
}

/** Failures a session object reports as values: errors thrown across RPC lose their code. */
export type ObjectResult<T> = ({ ok: true } & T) | { ok: false; code: "not_found" | "quota_exceeded" | "mind_moving"; message: string };

export interface AppendResult {
  message: Message;
  /** This message's place in the session's appends: 1, 2, 3, … */
  sequence: number;
  /** Ephemeral messages deleted by this append (TTL ran out or the tool changed). */
  cleared: number;
  /** Oldest messages deleted to keep the history within `history_cap`. */
  trimmed: number;
  transaction_completed: boolean;
  state: SessionState;
}

/** The counters as the API shows them. */
export interface SessionState {
  messages_appended: number;
  messages_since_extraction: number;
  extraction_scheduled: boolean;
  extraction_due: boolean;
  extraction_due_at: string | null;
  ephemeral_pending: boolean;
  active_tool: string | null;
  unrelated_since_tool: number;
  completion_pending: boolean;
}

export const toSessionState = (c: SessionCounters): SessionState => ({
  messages_appended: c.appended,
  messages_since_extraction: c.sinceExtraction,
  extraction_scheduled: c.extractionScheduled,
  extraction_due: c.extractionDue,
  extraction_due_at: c.extractionDueAt,
  ephemeral_pending: c.ephemeralPending,
  active_tool: c.activeTool,
  unrelated_since_tool: c.unrelatedSinceTool,
  completion_pending: c.completionPending,
});

/** Erases the objects' stored state and alarms, after their sessions' rows are gone. */
export async function forgetSessionObjects(
  namespace: DurableObjectNamespace<SessionObject>,
  sessionIds: readonly string[],
): Promise<void> {
  await Promise.all(sessionIds.map((id) => sessionObject(namespace, id).forget()));
}
