// What the backlog part hands its job (bench/jobs/backlog.job.ts) and reads back.

export interface BacklogInput {
  sizes: number[];
  /** The slow stand-in model's origin, for its counters. */
  model: string;
  /** Give up waiting for the queue to drain after this long. */
  drainTimeoutMs: number;
}

export interface BacklogRow {
  namespaces: number;
  path: "queue" | "serial";
  /** The cron run's wall time and D1 statements (the hourly run: consolidation and embeddings). */
  producerMs: number;
  producerStatements: number;
  pages: number | null;
  /** Namespaces consolidated when the measurement ended, and the time from the run's start until then. */
  consolidated: number;
  drainMs: number | null;
  modelCalls: number;
  maxInFlight: number;
}
