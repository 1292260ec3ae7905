import { DurableObject } from "cloudflare:workers";
import type { ModelLimits } from "./limited-model";

// One object per model provider: the requests and tokens per minute the whole deployment may
// send it, shared by every consumer invocation and Durable Object that calls the model. Two
// buckets refill continuously (a minute's allowance per minute, a minute's worth at most), so
// a burst never exceeds a minute's allowance and a steady load runs at the limit. A caller
// refused is told how long to wait; a provider that answered 429 pauses every caller.

export type Admission = { ok: true } | { ok: false; retryAfterMs: number };

interface Buckets {
  requests: number;
  tokens: number;
  at: number;
  /** No call before this time (ms): the provider said to wait. */
  pausedUntil: number;
}

const KEY = "buckets";
const MINUTE_MS = 60_000;

export class ModelLimiterObject extends DurableObject<Env> {
  /** Takes one request and `tokens` from the buckets, or says how long until they hold enough. */
  async admit(tokens: number, limits: ModelLimits): Promise<Admission> {
    const now = Date.now();
    const b = this.refill(now, limits);
    if (b.pausedUntil > now) return { ok: false, retryAfterMs: b.pausedUntil - now };
    // A call larger than a minute's tokens would never fit: it waits for a full bucket instead.
    const cost = limits.tokensPerMinute > 0 ? Math.min(tokens, limits.tokensPerMinute) : 0;
    const needRequests = limits.requestsPerMinute > 0 ? Math.max(0, 1 - b.requests) : 0;
    const needTokens = limits.tokensPerMinute > 0 ? Math.max(0, cost - b.tokens) : 0;
    if (needRequests > 0 || needTokens > 0) {
      const wait = Math.max(
        needRequests > 0 ? (needRequests * MINUTE_MS) / limits.requestsPerMinute : 0,
        needTokens > 0 ? (needTokens * MINUTE_MS) / limits.tokensPerMinute : 0,
      );
      this.save(b);
      return { ok: false, retryAfterMs: Math.ceil(wait) };
    }
    if (limits.requestsPerMinute > 0) b.requests -= 1;
    if (limits.tokensPerMinute > 0) b.tokens -= cost;
    this.save(b);
    return { ok: true };
  }

  /** The provider answered "too many requests": nobody calls it for `ms`. */
  async pause(ms: number): Promise<void> {
    const b = this.ctx.storage.kv.get<Buckets>(KEY) ?? { requests: 0, tokens: 0, at: Date.now(), pausedUntil: 0 };
    this.save({ ...b, pausedUntil: Math.max(b.pausedUntil, Date.now() + Math.min(ms, 10 * MINUTE_MS)) });
  }

  private refill(now: number, limits: ModelLimits): Buckets {
    const stored = this.ctx.storage.kv.get<Buckets>(KEY);
    if (!stored) return { requests: limits.requestsPerMinute, tokens: limits.tokensPerMinute, at: now, pausedUntil: 0 };
    const elapsed = Math.max(0, now - stored.at);
    return {
      requests: Math.min(limits.requestsPerMinute, stored.requests + (elapsed * limits.requestsPerMinute) / MINUTE_MS),
      tokens: Math.min(limits.tokensPerMinute, stored.tokens + (elapsed * limits.tokensPerMinute) / MINUTE_MS),
      at: now,
      pausedUntil: stored.pausedUntil,
    };
  }

  private save(b: Buckets): void {
    this.ctx.storage.kv.put(KEY, b);
  }
}
