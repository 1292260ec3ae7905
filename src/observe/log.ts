import { AsyncLocalStorage } from "node:async_hooks";
import { appErrorOf, loggable } from "../errors";

export type LogLevel = "info" | "warn" | "error";
export type LogValue = string | number | boolean | null;
export type LogFields = Record<string, LogValue | undefined>;

// Workers Logs keeps what the console prints and indexes a JSON line field by field; the
// console method sets the line's level.
const SINKS: Record<LogLevel, (line: string) => void> = {
  info: (line) => console.log(line),
  warn: (line) => console.warn(line),
  error: (line) => console.error(line),
};

// The fields of the work under way (a request, a queue message, a cron run, a Durable Object's
// call or alarm, a Telegram update), above all its request id: every line written while it runs
// carries them, however deep the code that writes it. workerd carries the value across awaits.
const context = new AsyncLocalStorage<LogFields>();

/** Runs `work` with `fields` on every line it writes, over the fields of any work around it. */
export function withLogFields<T>(fields: LogFields, work: () => T): T {
  return context.run({ ...context.getStore(), ...fields }, work);
}

/** The request id of the work under way, if any. */
export const currentRequestId = (): string | undefined => {
  const id = context.getStore()?.request_id;
  return typeof id === "string" ? id : undefined;
};

/** A request id for work no request started: the kind of work, then 32 hex digits (`cron_…`, `alarm_…`). */
export const newRequestId = (kind: string) => `${kind}_${crypto.randomUUID().replaceAll("-", "")}`;

/**
 * Runs `work` under the request id of the work around it, or a new one of `kind` when there is
 * none: the entry points of work a request did not start (a cron run, a Durable Object's alarm).
 */
export const withRequestId = <T>(kind: string, work: () => T): T => withLogFields({ request_id: currentRequestId() ?? newRequestId(kind) }, work);

/**
 * Writes one structured line: the event's name, the fields of the work under way and its own,
 * undefined ones left out. Fields are ids, codes, counts and durations: never a person's text,
 * a prompt or a statement.
 */
export function logEvent(level: LogLevel, event: string, fields: LogFields = {}): void {
  const line: Record<string, LogValue> = { level, event };
  for (const [name, value] of Object.entries({ ...context.getStore(), ...fields })) if (value !== undefined) line[name] = value;
  SINKS[level](JSON.stringify(line));
}

/** A failure as a line carries it: its code (an unexpected failure is `internal`) and `loggable`'s account of it. */
export function errorFields(error: unknown): { error_code: string; error: string } {
  return { error_code: appErrorOf(error)?.code ?? "internal", error: loggable(error) };
}

/** Logs a failure at error level with its code and the event's own fields. */
export function logFailure(event: string, error: unknown, fields: LogFields = {}): void {
  logEvent("error", event, { ...fields, ...errorFields(error) });
}
