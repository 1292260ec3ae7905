import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AppError, describeZodError, type ErrorCode, isMindMoving, MIND_MOVING_RETRY_SECONDS, mindMoving } from "../errors";
import { RateLimited } from "../limits/rate-limits";
import { logEvent, logFailure } from "../observe/log";
import { noteRequest, requestIdOf } from "../observe/request";

/** How much of a path an answer echoes. */
const ECHOED_PATH_CHARS = 200;

/** The 404 of a path no route serves: the path is echoed (shortened) in JSON, never as markup. */
export function noRoute(c: Context): Response {
  const path = c.req.path.length > ECHOED_PATH_CHARS ? `${c.req.path.slice(0, ECHOED_PATH_CHARS)}…` : c.req.path;
  return c.json(errorBody("not_found", `no route for ${c.req.method} ${path}`, requestIdOf(c.req.raw)), 404);
}

/** The one error body every front answers with: the request id is the one its log line and X-Request-Id carry. */
export function errorBody(code: ErrorCode, message: string, requestId: string) {
  return { error: { code, message, requestId } };
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
  const requestId = requestIdOf(c.req.raw);
  const answer = (code: ErrorCode, message: string, status: number) => {
    noteRequest(c.req.raw, { error_code: code });
    return c.json(errorBody(code, message, requestId), status as ContentfulStatusCode);
  };
  if (err instanceof AppError) {
    logNotConfigured(err, requestId);
    if (err instanceof RateLimited) c.header("Retry-After", String(err.retryAfterSeconds));
    if (err.code === "mind_moving") c.header("Retry-After", String(MIND_MOVING_RETRY_SECONDS));
    return answer(err.code, err.message, err.status);
  }
  if (err instanceof HTTPException && err.status < 500) {
    const code = CODE_BY_STATUS[err.status] ?? "invalid_request";
    return answer(code, err.message || code, err.status);
  }
  if (isMindMoving(err)) return handleError(mindMoving(), c);
  logFailure("unhandled_error", err, { request_id: requestId, method: c.req.method });
  return answer("internal", "internal error", 500);
}

/** An operator must see a missing setting in the log too: the caller may never report it. */
function logNotConfigured(err: AppError, requestId: string): void {
  if (err.code === "not_configured") logEvent("error", "not_configured", { request_id: requestId, message: err.message });
}

/**
 * The answer to a failure that escaped every handler (the OAuth provider in front of the
 * routes has none of its own): a typed error with its own status (a missing setting: 503),
 * anything else logged and a 500, both in the one error shape, so nothing a caller sends makes
 * the Worker's fetch throw.
 */
export function escapedError(request: Request, err: unknown): Response {
  const requestId = requestIdOf(request);
  if (err instanceof AppError) {
    logNotConfigured(err, requestId);
    noteRequest(request, { error_code: err.code });
    return Response.json(errorBody(err.code, err.message, requestId), { status: err.status });
  }
  logFailure("unhandled_error", err, { request_id: requestId, method: request.method });
  noteRequest(request, { error_code: "internal" });
  return Response.json(errorBody("internal", "internal error", requestId), { status: 500 });
}

export { describeZodError };
