import { DurableObject } from "cloudflare:workers";

const WINDOW_KEY = "window";

interface Window {
  /** Start of the fixed window, in ms since the epoch. */
  start: number;
  count: number;
}

/** What one counted event learned: within the limit, or how long until the window ends. */
export interface RateVerdict {
  allowed: boolean;
  count: number;
  retryAfterSeconds: number;
}

/**
 * One per rate-limit bucket (a key, an account or a client address for one kind of event):
 * a fixed-window counter. Its methods touch only its own storage, so calls serialise by
 * themselves; an alarm drops the counter once its window is long over.
 */
export class RateLimiterObject extends DurableObject<Env> {
  /** Counts one event in the current window of `windowSeconds`; over `limit` it is refused. */
  async hit(limit: number, windowSeconds: number): Promise<RateVerdict> {
    const now = Date.now();
    const windowMs = windowSeconds * 1000;
    const start = Math.floor(now / windowMs) * windowMs;
    const stored = this.ctx.storage.kv.get<Window>(WINDOW_KEY);
    const count = stored?.start === start ? stored.count + 1 : 1;
    this.ctx.storage.kv.put(WINDOW_KEY, { start, count } satisfies Window);
    if (count === 1) await this.ctx.storage.setAlarm(start + 2 * windowMs);
    return { allowed: count <= limit, count, retryAfterSeconds: Math.max(1, Math.ceil((start + windowMs - now) / 1000)) };
  }

  override async alarm(): Promise<void> {
    this.ctx.storage.kv.delete(WINDOW_KEY);
  }
}
