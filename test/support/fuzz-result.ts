// What a fuzz run (./fuzz.ts) reports. Apart from the runner so that code outside workerd (the
// benchmark part) can name it without reaching the Worker's modules.

export interface FuzzResult {
  cases: number;
  byKind: Record<string, number>;
  statuses: Record<string, number>;
  failures: string[];
  /** Milliseconds each request took, for the benchmark's figures. */
  ms: number[];
  /** The slowest requests, slowest first. */
  slowest: { ms: number; request: string }[];
}
