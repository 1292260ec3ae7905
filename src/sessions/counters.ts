import type { MindSettings } from "../tenancy/settings";

/**
 * What a session object remembers between messages. Pure data, so each transition below
 * is a plain function of the old state, the message and the mind's settings.
 */
export interface SessionCounters {
  /** Messages this object has appended; the last append's sequence number. */
  appended: number;
  /** Non-ephemeral messages since the last extraction. */
  sinceExtraction: number;
  /** An extraction alarm is set and has not run yet. */
  extractionScheduled: boolean;
  /** The alarm ran and nothing moved the cursor: extraction is waiting to be done. */
  extractionDue: boolean;
  extractionDueAt: string | null;
  /** Ephemeral messages exist and are waiting to be cleared. */
  ephemeralPending: boolean;
  /** The tool whose ephemeral output is pending (null: output not tied to a named tool). */
  activeTool: string | null;
  /** Messages in a row not about the active tool since its last output. */
  unrelatedSinceTool: number;
  /** A message marked the transaction completed; the user has not answered "Done?" yet. */
  completionPending: boolean;
}

export const INITIAL_COUNTERS: SessionCounters = {
  appended: 0,
  sinceExtraction: 0,
  extractionScheduled: false,
  extractionDue: false,
  extractionDueAt: null,
  ephemeralPending: false,
  activeTool: null,
  unrelatedSinceTool: 0,
  completionPending: false,
};

export interface IncomingMessage {
  ephemeral: boolean;
  tool: string | null;
  transactionCompleted: boolean;
}

export interface AppendPlan {
  /** Delete the session's ephemeral messages before inserting this one. */
  clearEphemeral: boolean;
  /** Set the extraction alarm after the write. */
  scheduleExtraction: boolean;
  next: SessionCounters;
}

const CLEARED = { ephemeralPending: false, activeTool: null, unrelatedSinceTool: 0 } as const;

/**
 * The ephemeral TTL and the extraction trigger. Ephemeral output makes its tool active;
 * a message about the same tool keeps it; a message about another tool clears it at once;
 * `ephemeral_ttl` messages in a row about anything else clear it.
 */
export function planAppend(
  state: SessionCounters,
  message: IncomingMessage,
  settings: Pick<MindSettings, "ephemeral_ttl" | "extract_every">,
): AppendPlan {
  let next: SessionCounters = { ...state, appended: state.appended + 1 };
  let clearEphemeral = false;

  const switchesTool = next.ephemeralPending && message.tool !== null && message.tool !== next.activeTool;
  if (switchesTool) {
    clearEphemeral = true;
    next = { ...next, ...CLEARED };
  }

  if (message.ephemeral) {
    // Output that names no tool joins whatever output is pending.
    next = { ...next, ephemeralPending: true, activeTool: message.tool ?? next.activeTool, unrelatedSinceTool: 0 };
  } else if (next.ephemeralPending) {
    if (message.tool !== null && message.tool === next.activeTool) {
      next = { ...next, unrelatedSinceTool: 0 };
    } else if (next.unrelatedSinceTool + 1 >= settings.ephemeral_ttl) {
      clearEphemeral = true;
      next = { ...next, ...CLEARED };
    } else {
      next = { ...next, unrelatedSinceTool: next.unrelatedSinceTool + 1 };
    }
  }

  if (!message.ephemeral) next = { ...next, sinceExtraction: next.sinceExtraction + 1 };
  const scheduleExtraction =
    !next.extractionScheduled && !next.extractionDue && next.sinceExtraction >= settings.extract_every;
  if (scheduleExtraction) next = { ...next, extractionScheduled: true };
  if (message.transactionCompleted) next = { ...next, completionPending: true };

  return { clearEphemeral, scheduleExtraction, next };
}

/** "Done? Yes" clears the ephemeral state; "No" keeps it. Either answers the question. */
export function planCompletion(state: SessionCounters, confirmed: boolean): { clearEphemeral: boolean; next: SessionCounters } {
  if (!confirmed) return { clearEphemeral: false, next: { ...state, completionPending: false } };
  return { clearEphemeral: true, next: { ...state, ...CLEARED, completionPending: false } };
}

/**
 * After an extraction ran: when the cursor moved (or there was nothing to read), the count
 * restarts from what is still after the cursor; when it could not move (no model, budget,
 * model failure), extraction stays due from the first time it was.
 */
export function afterExtraction(
  state: SessionCounters,
  outcome: { extracted: number | null; remaining: number },
  nowIso: string,
): SessionCounters {
  const base = { ...state, extractionScheduled: false };
  if (outcome.extracted !== null) return { ...base, sinceExtraction: outcome.remaining, extractionDue: false, extractionDueAt: null };
  return { ...base, extractionDue: true, extractionDueAt: state.extractionDueAt ?? nowIso };
}
