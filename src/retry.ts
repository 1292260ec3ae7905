// How long to wait before trying failed work again, for everything that retries on its own:
// the mind's operations object, a Telegram chat's object, embeddings and the work queue's consumer.
// Each keeps its own numbers as a named policy; the delay is computed here only.

/** A named set of numbers for one kind of retried work. */
export interface RetryPolicy {
  /** The wait after the first failure; it doubles with each failure in a row. */
  firstMs: number;
  /** The longest wait. */
  maxMs: number;
  /** Each wait is spread by up to ± this share of it (0.2: 80–120 %), so retries of many callers spread out. */
  jitter?: number;
  /** Tries in all before the work is given up; absent, it is never given up. */
  attempts?: number;
}

/** Past this many doublings every wait is at the cap anyway (and 2 ** n stays exact). */
const MAX_DOUBLINGS = 30;

/**
 * The wait after the `failures`-th failure in a row (1 for the first): `firstMs`, doubled each
 * time, at most `maxMs`, then spread by the policy's jitter. `random` is injectable (tests).
 */
export function retryDelay(policy: RetryPolicy, failures: number, random: () => number = Math.random): number {
  const doublings = Math.min(Math.max(failures - 1, 0), MAX_DOUBLINGS);
  const wait = Math.min(policy.maxMs, policy.firstMs * 2 ** doublings);
  const jitter = policy.jitter ?? 0;
  return jitter === 0 ? wait : wait * (1 - jitter + 2 * jitter * random());
}

/** Whether work that failed `failures` times in a row has used up the policy's tries. */
export function givenUp(policy: RetryPolicy, failures: number): boolean {
  return policy.attempts !== undefined && failures >= policy.attempts;
}
