import type { Deps } from "../deps";
import type { SessionTarget } from "./model";

/** What an extraction run reports back to the session object. */
export interface ExtractionOutcome {
  /** How many non-ephemeral messages the cursor moved past; null when it did not move. */
  extracted: number | null;
}

/**
 * Called by a session's extraction alarm once `extract_every` non-ephemeral messages have
 * accumulated. No extractor is configured in this build, so nothing is read and the cursor
 * (`sessions.extracted_through_message_id`) stays where it is: the session object then
 * records that extraction is due, and no message is skipped when an extractor arrives.
 */
export async function onExtractionDue(_deps: Deps, _target: SessionTarget): Promise<ExtractionOutcome> {
  return { extracted: null };
}
