import type { Conversation } from "./dataset";

// Parameters are chosen on the first five conversations only; the last five are held out,
// and every figure is shown for them beside all ten.
export const TUNING = "conversations 0–4 (tuning)";
export const HELD_OUT = "conversations 5–9 (held out)";
export const ALL = "all ten";

/** Conversation ids of each group: all, tuning, held out. */
export function conversationGroups(conversations: readonly Conversation[]): Record<string, string[]> {
  const ids = conversations.map((c) => c.id);
  return { [ALL]: ids, [TUNING]: ids.slice(0, 5), [HELD_OUT]: ids.slice(5) };
}
