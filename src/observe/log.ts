import { AppError, loggable } from "../errors";

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

/**
 * Writes one structured line: the event's name and its fields, undefined ones left out. Fields
 * are ids, codes, counts and durations: never a person's text, a prompt or a statement.
 */
export function logEvent(level: LogLevel, event: string, fields: LogFields = {}): void {
  const line: Record<string, LogValue> = { level, event };
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) line[name] = value;
  SINKS[level](JSON.stringify(line));
}

/** A failure as a line carries it: its code (an unexpected failure is `internal`) and `loggable`'s account of it. */
export function errorFields(error: unknown): { error_code: string; error: string } {
  return { error_code: error instanceof AppError ? error.code : "internal", error: loggable(error) };
}

/** Logs a failure at error level with its code and the event's own fields. */
export function logFailure(event: string, error: unknown, fields: LogFields = {}): void {
  logEvent("error", event, { ...fields, ...errorFields(error) });
}
