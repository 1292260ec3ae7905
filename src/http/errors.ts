import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { AppError, appErrorOf, describeZodError, type ErrorCode, isMindMoving, MIND_MOVING_RETRY_SECONDS, ModelRateLimited, mindMoving } from "../errors";
import { RateLimited } from "../limits/rate-limits";
import { logEvent, logFailure } from "../observe/log";
import { noteRequest, requestIdOf } from "../observe/request";

/** How much of a path an answer echoes. */
const ECHOED_PATH_CHARS = 200;

/**
 * The answer to a request no route served: `405` with `Allow` when only other methods serve the
 * path (`methodsOf`), else `404`. The path is echoed (shortened) in JSON, never as markup.
 */
export function noRoute(methodsOf: (path: string) => string[]) {
  return (c: Context): Response => {
    const path = c.req.path.length > ECHOED_PATH_CHARS ? `${c.req.path.slice(0, ECHOED_PATH_CHARS)}…` : c.req.path;
    const allowed = methodsOf(c.req.path);
    const requestId = requestIdOf(c.req.raw);
    // A route of this method that found nothing (an unknown asset) is a 404 too.
    if (allowed.length === 0 || allowed.includes(c.req.method)) return c.json(errorBody("not_found", `no route for ${c.req.method} ${path}`, requestId), 404);
    const message = `${c.req.method} is not allowed on ${path}: use ${allowed.join(", ")}`;
    return c.json(errorBody("method_not_allowed", message, requestId), 405, { Allow: allowed.join(", ") });
  };
}

/** The one error body every front answers with: the request id is the one its log line and X-Request-Id carry. */
export function errorBody(code: ErrorCode, message: string, requestId: string | null) {
  return { error: { code, message, ...(requestId !== null && { requestId }) } };
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
};

/** Only JSON bodies are checked for their type: every other body (an archive) is read by its own route. */
const UNSUPPORTED_MEDIA_TYPE = "this route takes a JSON body: send it with Content-Type: application/json";

/** The seconds a failure tells its client to wait before trying again (Retry-After), or null. */
function retryAfterOf(err: AppError): number | null {
  if (err instanceof RateLimited || err instanceof ModelRateLimited) return err.retryAfterSeconds;
  return err.code === "mind_moving" ? MIND_MOVING_RETRY_SECONDS : null;
}

/**
 * Maps anything thrown while handling a request to a status and the error body; an AppError a
 * Durable Object threw keeps its code across RPC (appErrorOf).
 */
export function handleError(err: Error, c: Context): Response {
  const requestId = requestIdOf(c.req.raw);
  const answer = (code: ErrorCode, message: string, status: number) => {
    noteRequest(c.req.raw, { error_code: code });
    return c.json(errorBody(code, message, requestId), status as ContentfulStatusCode);
  };
  const known = appErrorOf(err);
  if (known) {
    logNotConfigured(known, requestId);
    const wait = retryAfterOf(known);
    if (wait !== null) c.header("Retry-After", String(wait));
    return answer(known.code, known.message, known.status);
  }
  if (err instanceof HTTPException && err.status === 415) return answer("unsupported_media_type", UNSUPPORTED_MEDIA_TYPE, 415);
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
 * A failure answered outside the router (the OAuth layer in front of it): the status, the one
 * error body and the Retry-After that handleError gives the same failure. Without the request
 * (the OAuth provider's onError sees none) the body names no request until the caller adds it.
 */
export function errorResponse(err: AppError, request: Request | null, headers?: HeadersInit): Response {
  const sent = new Headers(headers);
  sent.set("Content-Type", "application/json");
  const wait = retryAfterOf(err);
  if (wait !== null) sent.set("Retry-After", String(wait));
  if (request) noteRequest(request, { error_code: err.code });
  return new Response(JSON.stringify(errorBody(err.code, err.message, request && requestIdOf(request))), { status: err.status, headers: sent });
}

/** The failure of a refusal another layer answered with this status (400, 401, 403, …), or null when none has it. */
export function failureOfStatus(status: number, message: string): AppError | null {
  const code = CODE_BY_STATUS[status];
  return code === undefined ? null : new AppError(code, message);
}

/** The error codes of OAuth's own endpoints that edgemind answers with (RFC 6749 §5.2). */
export type OAuthErrorCode = "invalid_request" | "invalid_grant" | "invalid_client_metadata";

/**
 * The error of an OAuth endpoint (token, registration) in the protocol's own body,
 * `{ error, error_description }` (RFC 6749 §5.2, RFC 7591 §3.2.2), never cached; clients parse
 * it, so it is not edgemind's error shape.
 */
export function oauthErrorResponse(error: OAuthErrorCode, description: string, status = 400): Response {
  const headers = { "Cache-Control": "no-store", Pragma: "no-cache" };
  return Response.json({ error, error_description: description }, { status, headers });
}

/**
 * The answer to a failure that escaped every handler (the OAuth provider in front of the
 * routes has none of its own): a typed error with its own status (a missing setting: 503),
 * anything else logged and a 500, both in the one error shape, so nothing a caller sends makes
 * the Worker's fetch throw.
 */
export function escapedError(request: Request, err: unknown): Response {
  const known = appErrorOf(err);
  if (known) {
    logNotConfigured(known, requestIdOf(request));
    return errorResponse(known, request);
  }
  logFailure("unhandled_error", err, { request_id: requestIdOf(request), method: request.method });
  return errorResponse(new AppError("internal", "internal error"), request);
}

export { describeZodError };
