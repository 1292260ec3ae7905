import type { z } from "zod";

/** Every failure a user may see has one of these codes; the HTTP layer maps them to statuses. */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  quota_exceeded: 403,
  not_found: 404,
  conflict: 409,
  memory_changed: 409,
  payload_too_large: 413,
  /** Recorded on a consolidation whose document would pass COLD_STORED_MAX_CHARS; no front answers it. */
  cold_memory_full: 413,
  budget_exceeded: 429,
  rate_limited: 429,

  method_not_allowed: 405,
  unsupported_media_type: 415,

  internal: 500,
  model_failed: 502,
  mind_moving: 503,
  not_configured: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "AppError";
  }

  get status(): (typeof ERROR_STATUS)[ErrorCode] {
    return ERROR_STATUS[this.code];
  }
}

export const invalid = (message: string) => new AppError("invalid_request", message);
export const notFound = (what: string) => new AppError("not_found", `${what} not found`);
export const forbidden = (message: string) => new AppError("forbidden", message);
export const unauthorized = (message = "missing or invalid credentials") => new AppError("unauthorized", message);
export const conflict = (message: string) => new AppError("conflict", message);
export const tooLarge = (message: string) => new AppError("payload_too_large", message);
/** One thing wrong with the deployment's settings: the setting (a var, a secret or a binding) and what it must be. */
export interface SettingProblem {
  setting: string;
  message: string;
}

/** Settings the work needs are missing or invalid: each problem names its setting and what it must be. */
export class NotConfigured extends AppError {
  constructor(readonly problems: SettingProblem[]) {
    super("not_configured", problems.map((p) => p.message).join("; "));
  }
}

/** A setting the request needs is missing or invalid: `message` names it and what it must be. */
export const notConfigured = (setting: string, message: string) => new NotConfigured([{ setting, message }]);

/** Throws every problem found at once (a reader of several settings), nothing when there is none. */
export function refuseProblems(problems: SettingProblem[]): void {
  if (problems.length > 0) throw new NotConfigured(problems);
}

/** How long a client waits before writing again to a mind that moves between databases. */
export const MIND_MOVING_RETRY_SECONDS = 30;
export const mindMoving = () =>
  new AppError("mind_moving", `this mind is moving to another database: writes are refused until it lands, retry in ${MIND_MOVING_RETRY_SECONDS} s`);

/**
 * The AppError a failure is, or null. An AppError thrown in a Durable Object reaches its caller
 * through RPC as a plain Error with the same name and own fields (code, problems, a retry's
 * seconds) but not the class: it is rebuilt, so a missing setting stays a 503 naming it from
 * whichever object raised it.
 */
export function appErrorOf(error: unknown): AppError | null {
  if (error instanceof AppError) return error;
  if (!(error instanceof Error) || error.name !== "AppError") return null;
  const fields = error as Error & { code?: unknown; problems?: unknown; retryAfterSeconds?: unknown };
  if (typeof fields.code !== "string" || !(fields.code in ERROR_STATUS)) return null;
  if (fields.code === "not_configured" && Array.isArray(fields.problems)) return new NotConfigured(fields.problems as SettingProblem[]);
  if (fields.code === "rate_limited" && typeof fields.retryAfterSeconds === "number") return Object.assign(new ModelRateLimited(fields.retryAfterSeconds), { message: error.message });
  return new AppError(fields.code as ErrorCode, error.message);
}

/**
 * Whether a failure is a write the database refused because the mind is moving (the fence
 * triggers of migrations/0014_shards.sql raise `mind_moving`), however it was wrapped.
 */
export function isMindMoving(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof AppError) return e.code === "mind_moving";
    if (e.message.includes("mind_moving")) return true;
  }
  return false;
}

/** A model call the shared limiter refused: try again after `retryAfterSeconds`. Not a failure of the work. */
export class ModelRateLimited extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super("rate_limited", `the model's requests or tokens per minute are used up; retry in ${retryAfterSeconds} s`);
  }
}

/** The model limiter's refusal inside whatever wrapped it (the model SDK's retries, an error's causes), or null. */
export function rateLimitedIn(error: unknown): ModelRateLimited | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; depth++) {
    if (e instanceof ModelRateLimited) return e;
    const next: unknown = (e as Error & { lastError?: unknown }).lastError ?? e.cause;
    e = next;
  }
  return null;
}

/**
 * A failure as the logs may keep it: its kind and code, and an unexpected error's message capped
 * and with its quoted parts dropped. Never the error object itself: a model's error carries the
 * prompt, a Bot API error the reply, a domain error's message may quote what a user wrote.
 */
export function loggable(error: unknown, depth = 0): string {
  if (error instanceof AppError) return `AppError ${error.code}`;
  if (!(error instanceof Error)) return `thrown ${typeof error}`;
  // drizzle's failed query carries the statement and its parameters (a memory's text among them): only its cause is told.
  if ("query" in error && "params" in error) {
    return `DrizzleQueryError${error.cause instanceof Error && depth < 2 ? ` (cause: ${loggable(error.cause, depth + 1)})` : ""}`;
  }
  const fields = error as Error & { error_code?: unknown; statusCode?: unknown; code?: unknown };
  const code = [fields.error_code, fields.statusCode, fields.code].find((c) => typeof c === "string" || typeof c === "number");
  const message = error.message.replace(/"[^"]*"/g, '"…"').slice(0, 200);
  const cause = error.cause instanceof Error && depth < 2 ? ` (cause: ${loggable(error.cause, depth + 1)})` : "";
  return `${error.name}${code === undefined ? "" : ` ${String(code)}`}: ${message}${cause}`;
}

/** One readable sentence from a zod failure, naming the field at fault. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => {
      const at = issue.path.join(".");
      if (issue.code === "unrecognized_keys") {
        const where = at ? ` in ${at}` : "";
        return `unknown field${issue.keys.length > 1 ? "s" : ""}${where}: ${issue.keys.join(", ")}`;
      }
      const message = plainMessage(issue);
      return at ? `${at}: ${message}` : message;
    })
    .join("; ");
}

/** zod's wording, except where it says what the input was rather than what to send. */
function plainMessage(issue: z.core.$ZodIssue): string {
  if (issue.code !== "invalid_type") return issue.message;
  // A number read from a path or query arrives as NaN when it is missing or not a number.
  if ("received" in issue && issue.received === "NaN") return "missing or not a number";
  if (issue.message.endsWith("received undefined")) return `required (${issue.expected})`;
  return issue.message;
}
