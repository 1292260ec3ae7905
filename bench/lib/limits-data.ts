// What the limits part hands its job (bench/jobs/limits.job.ts) and reads back.

export interface LimitsInput {
  /** Memories and notes of the erased mind, units of the producer run, expired rows of the retention run. */
  size: number;
  /** Sessions of the erased mind, and messages in each. */
  sessions: number;
  messagesPerSession: number;
  /** Changes written in one mind with `webhooks` webhooks, every event delivered to each. */
  webhookChanges: number;
  webhooks: number;
  bindings: Record<string, string>;
}

/** Invocations of one measurement: how many, the most any one used, and which one used the most D1 queries. */
export interface InvocationFigures {
  invocations: number;
  mostD1Queries: number;
  /** Queue sends, fetches and calls to Durable Objects. */
  mostSubrequests: number;
  busiest: string;
}

export interface ErasureResult extends InvocationFigures {
  /** What the receipt counted, per table. */
  deleted: Record<string, number>;
  /** Seeding time, and from the DELETE request until the operations object has nothing left. */
  seedMs: number;
  wallMs: number;
  /** The operations object's runs: the request's own and the alarms. */
  objectRuns: number;
  sessionObjectCalls: number;
  /** Rows of the mind left anywhere, per table (only tables with any), and stored keys of its sessions' objects before and after. */
  left: Record<string, number>;
  objectKeys: { objects: number; before: number; after: number };
  /** The limits passed, as the guard reported them. */
  passed: string[];
}

export interface ProducerResult extends InvocationFigures {
  due: number;
  sent: number;
  /** Units sent more than once, and due units never sent. */
  duplicates: number;
  missing: number;
  continuations: number;
  seedMs: number;
  wallMs: number;
  passed: string[];
}

export interface RetentionResult extends InvocationFigures {
  expired: { memories: number; notes: number; history: number };
  deleted: Record<string, number>;
  /** Rows still due after the run, per kind. */
  dueAfter: { memories: number; notes: number; history: number };
  seedMs: number;
  wallMs: number;
  passed: string[];
}

export interface WebhooksResult extends InvocationFigures {
  changes: number;
  webhooks: number;
  /** Messages the writes sent to wake the delivery. */
  wakes: number;
  /** Deliveries the receivers got in all; by `webhook-id`, events a receiver got twice or never, and deliveries out of sequence. */
  received: number;
  duplicates: number;
  missing: number;
  outOfOrder: number;
  /** Left behind: events still waiting for a webhook, webhooks failing or disabled, what their failed attempts said. */
  pending: number;
  failing: number;
  disabled: number;
  errors: string[];
  seedMs: number;
  wallMs: number;
  passed: string[];
}

export interface LimitsResult {
  erase: ErasureResult;
  producer: ProducerResult;
  retention: RetentionResult;
  webhooks: WebhooksResult;
}
