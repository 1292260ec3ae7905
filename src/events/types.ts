import type { EventRow } from "../db/schema";

// What a mind's webhooks receive: one event per change, numbered per mind (`sequence`), written
// in the batch of the change it describes (src/events/emit.ts, through src/memory/outbox.ts).

/** Every type of event, as a webhook subscribes to it. */
export const EVENT_TYPES = [
  "memory.created",
  "memory.updated",
  "memory.deleted",
  "memory.verified",
  "memory.superseded",
  "note.created",
  "cold.updated",
  "session.created",
  "session.done",
  "mind.erased",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** An event as it is sent (the body of a delivery) and shown. */
export interface MindEvent {
  id: string;
  type: EventType;
  mind_id: string;
  /** The agent namespace the change happened in; null for the mind as a whole. */
  agent: string | null;
  occurred_at: string;
  /** Per mind, from 1, with no gaps while the mind has webhooks: the order of its changes. */
  sequence: number;
  /** What changed: the row's fields after the change and the names of those that changed, or the version and who wrote it. */
  data: Record<string, unknown>;
}

/** The event a stored row holds. */
export const toMindEvent = (row: EventRow): MindEvent => ({
  id: row.id,
  type: row.type as EventType,
  mind_id: row.mindId,
  agent: row.agent,
  occurred_at: row.occurredAt,
  sequence: row.sequence,
  data: JSON.parse(row.data) as Record<string, unknown>,
});

/** An event's body as a receiver gets it: its fields in this order, nothing else. */
export const eventBody = (event: MindEvent): string => JSON.stringify(event);
