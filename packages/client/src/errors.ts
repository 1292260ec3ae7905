/** The codes the API answers with (`{ error: { code, message } }`); an unknown one passes through as it is. */
export type EdgemindErrorCode =
  | "invalid_request"
  | "unauthorized"
  | "forbidden"
  | "quota_exceeded"
  | "not_found"
  | "conflict"
  | "memory_changed"
  | "payload_too_large"
  | "budget_exceeded"
  | "rate_limited"
  | "internal"
  | "model_failed"
  | "mind_moving"
  | "not_configured"
  | (string & {});

/** Every failed call: the HTTP status, the API's error code and message, and the Retry-After it named. */
export class EdgemindError extends Error {
  constructor(
    readonly status: number,
    readonly code: EdgemindErrorCode,
    message: string,
    /** Seconds the service asked to wait before retrying (429, 503), or null. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = "EdgemindError";
  }
}

/** Seconds from a Retry-After header (seconds or an HTTP date), or null when it says nothing usable. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | null {
  if (value === null || value.trim() === "") return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The error a failed answer stands for, read from its body when it has the API's error shape. */
export function errorOf(response: Response, body: unknown): EdgemindError {
  const retryAfter = retryAfterSeconds(response.headers.get("Retry-After"));
  const error = typeof body === "object" && body !== null ? (body as { error?: unknown }).error : undefined;
  if (typeof error === "object" && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    if (typeof code === "string") return new EdgemindError(response.status, code, typeof message === "string" ? message : code, retryAfter);
  }
  const text = typeof body === "string" && body.length > 0 ? `: ${body.slice(0, 200)}` : "";
  return new EdgemindError(response.status, `http_${response.status}`, `HTTP ${response.status}${text}`, retryAfter);
}
