/** What a wrapped binding's call is counted as. */
export type TripKind = "D1" | "DO" | "KV" | "Queue" | "AI" | "Vectorize" | "rate limit";

/** Milliseconds each call waits before it is made; `replica` null: every D1 call goes to the primary. */
export interface BindingDelays {
  primary: number;
  replica: number | null;
  object: number;
  kv: number;
  queue: number;
  ai: number;
  vectorize: number;
}

export interface LatencyInput {
  repetitions: number;
  /** The settings measured, by name; "none" (every delay 0) is what infrastructure time is taken against. */
  settings: Record<string, BindingDelays>;
  directory: { keys: number; requests: number };
  bindings: Record<string, string>;
}

/** One operation's calls by kind and database, counted with the replica split on. */
export interface TripCounts {
  d1Directory: number;
  d1Shard: number;
  d1Primary: number;
  d1Replica: number;
  objects: Record<string, number>;
  kv: number;
  queue: number;
  ai: number;
  vectorize: number;
  rateLimit: number;
}

export interface OperationResult {
  name: string;
  trips: TripCounts;
  /** Wall times (ms) per setting, one per repetition. */
  wall: Record<string, number[]>;
}

export interface LatencyResult {
  wrapped: Record<string, string>;
  operations: OperationResult[];
  directory: { keys: number; requests: number; statements: number; trips: number; wallMs: number };
}
