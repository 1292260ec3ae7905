// A unit of background work, as a queue message names it. The unit is text (its kind and ids
// separated by spaces): it is the message, the key of the unit's queued mark, and, because a
// space sorts before every character of an id, its text sorts as its ids do, so a producer can
// page through due units by it.

import type { WorkQueue } from "../deps";
import { JOB_NAMES, type JobName } from "./job-runs";

export const UNIT_KINDS = ["consolidate", "extract", "embed", "vectors", "retention", "erase", "import", "deliver", "produce"] as const;
export type UnitKind = (typeof UNIT_KINDS)[number];

export type Unit =
  /** Fold a namespace's waiting notes into its cold memory. */
  | { kind: "consolidate"; mindId: string; agent: string }
  /** Extract notes from a session's messages after its cursor. */
  | { kind: "extract"; mindId: string; sessionId: string }
  /** Embed a mind's rows whose vectors are due. */
  | { kind: "embed"; mindId: string }
  /** On one database: remove vectors of rows that went, mark rows that never had one. */
  | { kind: "vectors" }
  /** On one database: one retention step in bounded rounds (src/jobs/retention.ts), or PRAGMA optimize. */
  | { kind: "retention"; step: string }
  /** Finish the erasure of a mind that stopped halfway. */
  | { kind: "erase"; mindId: string }
  /** Wake the mind's operations object for an import that stopped moving (its object was lost, or redeployed). */
  | { kind: "import"; mindId: string; importId: string }
  /** Deliver a mind's events waiting for its webhooks (src/webhooks/deliver.ts). */
  | { kind: "deliver"; mindId: string }
  /** The next slice of a job's producer on the message's database: its source from the unit after `after` (null: the start). */
  | { kind: "produce"; job: JobName; run: string; source: number; after: string | null };

/** What travels on the queue: the unit, the database whose producer found it, and the run that holds its mark. */
export interface WorkMessage {
  unit: string;
  shard: string;
  run: string;
}

const ID = /^[a-z0-9][a-z0-9_-]{0,99}$/;

/** The unit's text. */
export function unitText(unit: Unit): string {
  switch (unit.kind) {
    case "consolidate":
      return `consolidate ${unit.mindId} ${unit.agent}`;
    case "extract":
      return `extract ${unit.mindId} ${unit.sessionId}`;
    case "import":
      return `import ${unit.mindId} ${unit.importId}`;
    case "embed":
    case "erase":
    case "deliver":
      return `${unit.kind} ${unit.mindId}`;
    case "retention":
      return `retention ${unit.step}`;
    case "vectors":
      return unit.kind;
    case "produce":
      return [unit.kind, unit.job, unit.run, String(unit.source), ...(unit.after === null ? [] : [unit.after])].join(" ");
  }
}

/** The unit a text names, or null when it names none (a message from elsewhere, or damaged). */
export function parseUnit(text: string): Unit | null {
  const [kind, ...ids] = text.split(" ");
  if (!ids.every((id) => ID.test(id))) return null;
  const [a, b] = ids;
  switch (kind) {
    case "consolidate":
      return ids.length === 2 ? { kind, mindId: a!, agent: b! } : null;
    case "extract":
      return ids.length === 2 ? { kind, mindId: a!, sessionId: b! } : null;
    case "import":
      return ids.length === 2 ? { kind, mindId: a!, importId: b! } : null;
    case "embed":
    case "erase":
    case "deliver":
      return ids.length === 1 ? { kind, mindId: a! } : null;
    case "retention":
      return ids.length === 1 ? { kind, step: a! } : null;
    case "vectors":
      return ids.length === 0 ? { kind } : null;
    case "produce":
      return parseProduce(ids);
    default:
      return null;
  }
}

const isJobName = (name: string | undefined): name is JobName => (JOB_NAMES as readonly (string | undefined)[]).includes(name);

/** `produce <job> <run> <source> [<after>…]`: the unit after which the slice starts is itself a unit's text. */
function parseProduce(ids: string[]): Unit | null {
  const [job, run, source, ...after] = ids;
  if (!isJobName(job) || run === undefined || !/^[0-9]{1,3}$/.test(source ?? "")) return null;
  return { kind: "produce", job, run, source: Number(source), after: after.length > 0 ? after.join(" ") : null };
}

/** A message body as it arrived, checked: anything else is not ours to work on. */
export function parseMessage(body: unknown): { message: WorkMessage; unit: Unit } | null {
  if (typeof body !== "object" || body === null) return null;
  const { unit, shard, run } = body as Record<string, unknown>;
  if (typeof unit !== "string" || typeof shard !== "string" || typeof run !== "string" || unit.length > 300 || shard.length > 64 || run.length > 64) return null;
  const parsed = parseUnit(unit);
  return parsed ? { message: { unit, shard, run }, unit: parsed } : null;
}

/** The mind and agent namespace a unit concerns, as an operator reads them. */
export function unitSubject(unit: Unit): { mindId: string | null; namespace: string | null } {
  return {
    mindId: "mindId" in unit ? unit.mindId : null,
    namespace: unit.kind === "consolidate" ? unit.agent : null,
  };
}

// A queue takes at most 100 messages a call.
const SEND_BATCH = 100;

/** Sends the messages, at most 100 a call. */
export async function sendAll(queue: WorkQueue, messages: WorkMessage[], delaySeconds?: number): Promise<void> {
  for (let i = 0; i < messages.length; i += SEND_BATCH) {
    const batch = messages.slice(i, i + SEND_BATCH).map((body) => ({ body, contentType: "json" as const }));
    await queue.sendBatch(batch, delaySeconds === undefined ? undefined : { delaySeconds });
  }
}

/** The queues of wrangler.toml: the work queue, and where its messages go after every retry failed. */
export const WORK_QUEUE = "edgemind-jobs";
export const DEAD_LETTER_QUEUE = "edgemind-jobs-dead";
