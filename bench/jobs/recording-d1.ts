import type { CapturedQuery } from "../lib/growth-data";

/** A D1 handle that notes every statement it runs (SQL and bound values) and runs it unchanged. */
export function recordingD1(d1: D1Database, log: CapturedQuery[]): D1Database {
  const wrap = (statement: D1PreparedStatement, sql: string, params: unknown[]): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, prop, receiver) {
        if (prop === "bind") return (...values: unknown[]) => wrap(target.bind(...values), sql, values);
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        if (prop === "all" || prop === "raw" || prop === "first" || prop === "run") {
          return (...args: unknown[]) => {
            log.push({ sql, params });
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
  return new Proxy(d1, {
    get(target, prop, receiver) {
      if (prop === "prepare") return (sql: string) => wrap(target.prepare(sql), sql, []);
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
