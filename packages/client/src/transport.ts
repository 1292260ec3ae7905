import { retryAfterSeconds } from "./errors.js";

/** The header in which the service hands back, and takes, a client's bookmark of one mind. */
export const BOOKMARK_HEADER = "X-Edgemind-Bookmark";

/** Anything that sends a Request: the global fetch, a service binding, a test's Worker. */
export type FetchLike = (request: Request) => Promise<Response>;

export interface RetryOptions {
  /** Tries in all, the first included (default 3). */
  attempts?: number;
  /** The longest Retry-After waited out; a longer one fails at once (default 30 s). */
  maxWaitSeconds?: number;
}

export interface TransportOptions {
  fetch?: FetchLike;
  /** Retries of answers 429 and 503 that carry Retry-After; `false`: none. */
  retry?: RetryOptions | false;
  /** How a wait is spent (default: a timer). */
  sleep?: (ms: number) => Promise<void>;
}

const RETRIED_STATUSES = new Set([429, 503]);
const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends every call of a client: waits out 429 and 503 answers within a bound (the service
 * refused them before writing anything, so sending again is safe), and carries the bookmark
 * each answer hands back to the next call in the same mind, so the client reads its own writes.
 */
export class Transport {
  private readonly bookmarks = new Map<string, string>();
  private latest: string | null = null;
  private readonly send: FetchLike;
  private readonly attempts: number;
  private readonly maxWaitSeconds: number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(options: TransportOptions = {}) {
    this.send = options.fetch ?? ((request) => fetch(request));
    this.attempts = options.retry === false ? 1 : Math.max(1, Math.floor(options.retry?.attempts ?? 3));
    this.maxWaitSeconds = options.retry === false ? 0 : (options.retry?.maxWaitSeconds ?? 30);
    this.sleep = options.sleep ?? wait;
  }

  /** The last bookmark an answer handed back for a mind (any mind when none is named). */
  bookmark(mindId?: string): string | null {
    return mindId === undefined ? this.latest : (this.bookmarks.get(mindId) ?? null);
  }

  readonly fetch = async (request: Request): Promise<Response> => {
    const bookmark = this.bookmark(request.headers.get("X-Mind-Id") ?? undefined);
    if (bookmark !== null && !request.headers.has(BOOKMARK_HEADER)) request.headers.set(BOOKMARK_HEADER, bookmark);
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= this.attempts;
      const response = await this.send(last ? request : request.clone());
      this.keep(response.headers.get(BOOKMARK_HEADER));
      const seconds = RETRIED_STATUSES.has(response.status) ? retryAfterSeconds(response.headers.get("Retry-After")) : null;
      if (last || seconds === null || seconds > this.maxWaitSeconds) return response;
      await response.body?.cancel();
      await this.sleep(seconds * 1000);
    }
  };

  private keep(bookmark: string | null): void {
    const mindId = bookmark?.split(":")[0];
    if (!bookmark || !mindId) return;
    this.bookmarks.set(mindId, bookmark);
    this.latest = bookmark;
  }
}
