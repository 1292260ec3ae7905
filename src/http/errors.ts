import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AppError, describeZodError, type ErrorCode, isMindMoving, loggable, MIND_MOVING_RETRY_SECONDS, mindMoving } from "../errors";
import { RateLimited } from "../limits/rate-limits";

/** How much of a path an answer echoes. */
const ECHOED_PATH_CHARS = 200;

/** The 404 of a path no route serves: the path is echoed (shortened) in JSON, never as markup. */
export function noRoute(c: Context): Response {
  const path = c.req.path.length > ECHOED_PATH_CHARS ? `${c.req.path.slice(0, ECHOED_PATH_CHARS)}…` : c.req.path;
  return c.json(errorBody("not_found", `no route for ${c.req.method} ${path}`), 404);
}

/** The one error body every front answers with. */
export function errorBody(code: ErrorCode, message: string) {
  return { error: { code, message } };
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
};

/** Maps anything thrown while handling a request to a status and the error body. */
export function handleError(err: Error, c: Context): Response {
  if (err instanceof AppError) {
    logNotConfigured(err, c.req.method, c.req.path);
    if (err instanceof RateLimited) c.header("Retry-After", String(err.retryAfterSeconds));
    if (err.code === "mind_moving") c.header("Retry-After", String(MIND_MOVING_RETRY_SECONDS));
    return c.json(errorBody(err.code, err.message), err.status as ContentfulStatusCode);
  }
  if (err instanceof HTTPException && err.status < 500) {
    const code = CODE_BY_STATUS[err.status] ?? "invalid_request";
    return c.json(errorBody(code, err.message || code), err.status as ContentfulStatusCode);
  }
  if (isMindMoving(err)) return handleError(mindMoving(), c);
  console.error("unhandled error", c.req.method, c.req.path, loggable(err));
  return c.json(errorBody("internal", "internal error"), 500);
}

/** An operator must see a missing setting in the log too: the caller may never report it. */
function logNotConfigured(err: AppError, method: string, path: string): void {
  if (err.code === "not_configured") console.error("not configured", method, path, err.message);
}

/**
 * The answer to a failure that escaped every handler (the OAuth provider in front of the
 * routes has none of its own): a typed error with its own status (a missing setting: 503),
 * anything else logged and a 500, both in the one error shape, so nothing a caller sends makes
 * the Worker's fetch throw.
 */
export function escapedError(request: Request, err: unknown): Response {
  if (err instanceof AppError) {
    logNotConfigured(err, request.method, pathOf(request.url));
    return Response.json(errorBody(err.code, err.message), { status: err.status });
  }
  console.error("unhandled error", request.method, pathOf(request.url), loggable(err));
  return Response.json(errorBody("internal", "internal error"), { status: 500 });
}

export { describeZodError };

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "(no URL)";
  }
}
