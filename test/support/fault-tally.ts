// What a fault test tallies (./faulty-d1.ts). Apart from it so that code outside workerd (the
// benchmark part) can name it without reaching the Worker's modules.

/** Per fault test: the operation's D1 calls, the faults this run took, those that passed every check, and those that did not. */
export interface FaultTally {
  calls: number;
  taken: number;
  checked: number;
  failures: string[];
  seconds: number;
}
