import type { z } from "zod";
import type { SessionCounters } from "./counters";
import type { appendResultRecord, sessionStateRecord } from "./fields";

/** A session's object: one per session id, wherever it is asked for from. */
export function sessionObject(namespace: Env["SESSIONS"], sessionId: string) {
  return namespace.get(namespace.idFromName(sessionId));
}

/** Failures a session object reports as values: errors thrown across RPC lose their code. */
export type ObjectResult<T> = ({ ok: true } & T) | { ok: false; code: "not_found" | "quota_exceeded" | "mind_moving"; message: string };

export type AppendResult = z.output<typeof appendResultRecord>;

/** The counters as the API shows them. */
export type SessionState = z.output<typeof sessionStateRecord>;

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
  namespace: Env["SESSIONS"],
  sessionIds: readonly string[],
): Promise<void> {
  await Promise.all(sessionIds.map((id) => sessionObject(namespace, id).forget()));
}
