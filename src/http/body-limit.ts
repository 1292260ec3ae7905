import { createMiddleware } from "hono/factory";
import { AppError } from "../errors";
import { refuseLoneSurrogates } from "../json-text";

// Request bodies are bounded before they are read, and never held whole beyond the small bound
// of ordinary routes, or a cold memory write's (its document is written whole): a route that
// stores a large body reads it as a stream. Whatever a route
// leaves unread (it refused the request before reading, or stopped partway and cancelled) is
// read and dropped before the answer, chunked or with a Content-Length: a connection left with
// part of a body unread breaks the next request on it (through `wrangler dev`'s proxy the next
// request gets no answer, or a 503 "Your worker restarted mid-request").

/** Most bytes of a refused body read and dropped before the answer, and for how long at most. */
const DRAIN_MAX_BYTES = 32 * 1024 * 1024;
const DRAIN_MAX_MS = 5_000;

export interface BodyLimit {
  maxSize: number;
  /** The route reads the body as a stream (counted here as it goes) instead of in one piece. */
  stream: boolean;
}

export const bodyTooLarge = (maxSize: number) => new AppError("payload_too_large", `request body is larger than ${maxSize} bytes`);

/** The length a request declares, when it sends its body in one piece rather than in chunks. */
function declaredLength(request: Request): number | null {
  const length = request.headers.get("Content-Length");
  if (length === null || request.headers.has("Transfer-Encoding")) return null;
  const value = Number(length);
  return Number.isFinite(value) ? value : null;
}

/** Reads and drops what is left of a body, within DRAIN_MAX_BYTES and DRAIN_MAX_MS. */
export async function drainBody(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  const until = Date.now() + DRAIN_MAX_MS;
  let drained = 0;
  try {
    while (drained <= DRAIN_MAX_BYTES && Date.now() < until) {
      const { done, value } = await reader.read();
      if (done) return;
      drained += value.byteLength;
    }
    await reader.cancel();
  } catch {
    // The client went away: nothing is left to read.
  }
}

/**
 * The body read whole if it is at most `maxSize` bytes (`complete`); otherwise its first
 * `maxSize` bytes, with the rest read and dropped.
 */
export async function readBodyWithin(request: Request, maxSize: number): Promise<{ bytes: Uint8Array; complete: boolean }> {
  if (!request.body) return { bytes: new Uint8Array(0), complete: true };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let complete = true;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxSize) {
      chunks.push(value.subarray(0, maxSize - size));
      size = maxSize;
      complete = false;
      await drainBody(reader);
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { bytes, complete };
}

/**
 * A body handed to the route as a stream that fails with a 413 once past `maxSize`;
 * whatever the route leaves unread (it refused the request, or stopped at the bound) is
 * drained by `finish`, before the answer goes out.
 */
class CountedBody {
  readonly stream: ReadableStream<Uint8Array>;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private ended = false;

  constructor(body: ReadableStream<Uint8Array>, maxSize: number) {
    this.reader = body.getReader();
    let size = 0;
    this.stream = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          const { done, value } = await this.reader.read();
          if (done) {
            this.ended = true;
            controller.close();
            return;
          }
          size += value.byteLength;
          if (size > maxSize) controller.error(bodyTooLarge(maxSize));
          else controller.enqueue(value);
        },
        // The route stopped reading: the rest is drained by finish, not dropped with the connection.
        cancel: () => undefined,
      },
      { highWaterMark: 0 },
    );
  }

  async finish(): Promise<void> {
    if (!this.ended) await drainBody(this.reader);
  }
}

/**
 * Bounds every request body by the limit `limitOf` gives its path (none: the route reads the
 * body itself, within its own bound). An ordinary route gets its body read whole, up to the
 * limit, and a JSON one holding a lone surrogate refused; a streaming route gets it as a counted stream, drained after the route whatever it
 * read. A declared length over the limit is drained and refused at once.
 */
export function limitBodies(limitOf: (path: string) => BodyLimit | null) {
  return createMiddleware(async (c, next) => {
    const raw = c.req.raw;
    const limit = limitOf(c.req.path);
    if (!raw.body || !limit) return next();
    const declared = declaredLength(raw);
    if (declared !== null && declared > limit.maxSize) {
      await drainBody(raw.body.getReader());
      throw bodyTooLarge(limit.maxSize);
    }
    if (!limit.stream) {
      const body = await readBodyWithin(raw, limit.maxSize);
      if (!body.complete) throw bodyTooLarge(limit.maxSize);
      refuseLoneSurrogates(body.bytes, raw.headers.get("Content-Type"));
      c.req.raw = new Request(raw, { body: body.bytes });
      return next();
    }
    const counted = new CountedBody(raw.body, limit.maxSize);
    c.req.raw = new Request(raw, { body: counted.stream });
    try {
      await next();
    } finally {
      await counted.finish();
    }
  });
}
