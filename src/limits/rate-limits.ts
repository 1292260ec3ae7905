import { AppError, refuseProblems, type SettingProblem } from "../errors";
import { Lru } from "../lru";

/**
 * The limits counted in Durable Objects, where a global, exact count matters (failed
 * authentications, registrations), per window, read from the Worker's vars; 0 turns one off.
 * Requests are limited by the Workers Rate Limiting bindings instead (request-limits.ts).
 */
export interface RateLimits {
  windowSeconds: number;
  authFailuresPerIp: number;
  authFailuresPerKey: number;
  registrationsPerIp: number;
}

/** Each limit with the var that sets it and its default. */
const LIMITS = {
  windowSeconds: ["RATE_LIMIT_WINDOW_SECONDS", 60],
  authFailuresPerIp: ["RATE_LIMIT_AUTH_FAILURES_PER_IP", 30],
  authFailuresPerKey: ["RATE_LIMIT_AUTH_FAILURES_PER_KEY", 10],
  registrationsPerIp: ["RATE_LIMIT_REGISTRATIONS_PER_IP", 10],
} as const satisfies Record<keyof RateLimits, readonly [keyof Env, number]>;

/** The limits as configured; a var that is not a whole number ≥ 0 is a configuration error. */
export function readRateLimits(env: Env): RateLimits {
  const problems: SettingProblem[] = [];
  const read = ([name, fallback]: readonly [keyof Env, number]) => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 0) problems.push({ setting: name, message: `${name} must be a whole number ≥ 0, not "${raw}"` });
    return value;
  };
  const limits = Object.fromEntries(Object.entries(LIMITS).map(([field, spec]) => [field, read(spec)])) as unknown as RateLimits;
  if (problems.length === 0 && limits.windowSeconds < 1) problems.push({ setting: "RATE_LIMIT_WINDOW_SECONDS", message: "RATE_LIMIT_WINDOW_SECONDS must be at least 1" });
  refuseProblems(problems);
  return limits;
}

/** A 429 naming the limit, with the seconds until its window ends (the Retry-After header). */
export class RateLimited extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super("rate_limited", message);
  }
}

/** One bucket to count an event in: its object's name, its limit and how to name it to a caller. */
export interface Bucket {
  name: string;
  limit: number;
  /** e.g. "registrations per client address (RATE_LIMIT_REGISTRATIONS_PER_IP)". */
  describe: string;
}

// Buckets known to be over their limit in this isolate, until their window ends: later events
// are refused without asking the object again. Bounded in entries and bytes; a bucket's name is
// bounded by its parts (an address, a key prefix of 40 characters, a SHA-256).
const blocked = new Lru<{ until: number; message: string }>({ maxEntries: 10_000, maxBytes: 4 * 1024 * 1024, ttlMs: 24 * 60 * 60 * 1000 });

/** Refuses at once if any bucket is known (in this isolate) to be over its limit. */
export function refuseIfBlocked(buckets: Bucket[], now = Date.now()): void {
  for (const bucket of buckets) {
    const known = blocked.get(bucket.name, now);
    if (known === undefined) continue;
    if (known.until <= now) blocked.delete(bucket.name);
    else throw new RateLimited(known.message, Math.ceil((known.until - now) / 1000));
  }
}

/**
 * Counts one event in each bucket (one call to each bucket's object, in parallel) and throws
 * `RateLimited` when any is over its limit. Buckets with limit 0 are off and cost nothing.
 */
export async function countEvent(
  namespace: Env["RATE_LIMITS"],
  limits: RateLimits,
  buckets: Bucket[],
): Promise<void> {
  const active = buckets.filter((b) => b.limit > 0);
  refuseIfBlocked(active);
  const verdicts = await Promise.all(
    active.map((b) => namespace.get(namespace.idFromName(b.name)).hit(b.limit, limits.windowSeconds)),
  );
  const refused = verdicts.findIndex((v) => !v.allowed);
  if (refused < 0) return;
  const bucket = active[refused]!;
  const retryAfter = verdicts[refused]!.retryAfterSeconds;
  const message = `rate limit reached: ${bucket.limit} ${bucket.describe} per ${limits.windowSeconds} s`;
  blocked.set(bucket.name, { until: Date.now() + retryAfter * 1000, message }, Date.now());
  throw new RateLimited(message, retryAfter);
}
