// What the job objects (an import's, a mind's move) share: each writes from its alarm in
// slices of bounded time, sets the next alarm at once while work is left, and after a failed
// run waits a pause that doubles with each failure in a row before it tries again.

/**
 * Work one alarm does before it hands over to the next: limits (CPU, D1 queries) are per
 * invocation, and a step of either job costs a few D1 calls.
 */
export const ALARM_SLICE_MS = 5_000;

/** The pause after the `failures`-th failed run in a row: `firstMs`, doubled each time, at most `maxMs`. */
export function retryPause(failures: number, firstMs: number, maxMs: number): number {
  return Math.min(maxMs, firstMs * 2 ** Math.min(Math.max(failures - 1, 0), 20));
}
