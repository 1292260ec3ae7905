import { RateLimited } from "./rate-limits";

/**
 * The period of every [[ratelimits]] binding in wrangler.toml (10 or 60 s are allowed): a refused
 * request is told to wait it out. Ten seconds keeps Retry-After within a client's usual bound.
 */
export const REQUEST_LIMIT_PERIOD_SECONDS = 10;

/** The Workers Rate Limiting bindings: requests per key, client or account, and per address. */
export type RequestLimiter = "WRITES_PER_KEY" | "WRITES_PER_IP" | "READS_PER_KEY" | "READS_PER_IP";

export interface RequestCount {
  limiter: RequestLimiter;
  key: string;
  /** e.g. "writes per key, client or account". */
  describe: string;
}

/**
 * Counts one request in each limiter (in-process: the binding keeps its counters in the
 * location that serves the request, no round trip) and throws `RateLimited` over a limit.
 * RATE_LIMIT_REQUESTS=off, or a missing binding, counts nothing.
 */
export async function limitRequest(env: Env, counts: RequestCount[]): Promise<void> {
  if (env.RATE_LIMIT_REQUESTS === "off") return;
  const outcomes = await Promise.all(counts.map((count) => env[count.limiter]?.limit({ key: count.key })));
  const refused = outcomes.findIndex((outcome) => outcome !== undefined && !outcome.success);
  if (refused < 0) return;
  const { describe, limiter } = counts[refused]!;
  throw new RateLimited(
    `rate limit reached: ${describe} (${limiter} in wrangler.toml's [[ratelimits]], per ${REQUEST_LIMIT_PERIOD_SECONDS} s)`,
    REQUEST_LIMIT_PERIOD_SECONDS,
  );
}
