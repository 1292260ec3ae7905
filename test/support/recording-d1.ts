/**
 * A D1 handle that notes the SQL of every statement it runs, one entry per statement (each
 * statement of a batch too), and runs it unchanged.
 */
export function recordingD1(d1: D1Database, log: string[]): D1Database {
  const raws = new WeakMap<object, { raw: D1PreparedStatement; sql: string }>();
  const wrap = (statement: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const proxy = new Proxy(statement, {
      get(target, prop, receiver) {
        if (prop === "bind") return (...values: unknown[]) => wrap(target.bind(...values), sql);
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        if (prop === "all" || prop === "raw" || prop === "first" || prop === "run") {
          return (...args: unknown[]) => {
            log.push(sql);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
    raws.set(proxy, { raw: statement, sql });
    return proxy;
  };
  return new Proxy(d1, {
    get(target, prop, receiver) {
      if (prop === "prepare") return (sql: string) => wrap(target.prepare(sql), sql);
      if (prop === "batch") {
        return (list: D1PreparedStatement[]) => {
          for (const s of list) log.push(raws.get(s)?.sql ?? "?");
          return target.batch(list.map((s) => raws.get(s)?.raw ?? s));
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A D1 handle whose statements matching `held` run only once `gate` settles; the rest run at once. */
export function holdingD1(d1: D1Database, held: (sql: string) => boolean, gate: Promise<void>): D1Database {
  const hold = (statement: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, prop, receiver) {
        if (prop === "bind") return (...values: unknown[]) => hold(target.bind(...values));
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        if (prop === "all" || prop === "raw" || prop === "first" || prop === "run") {
          return async (...args: unknown[]) => {
            await gate;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
  return new Proxy(d1, {
    get(target, prop, receiver) {
      if (prop === "prepare") return (sql: string) => (held(sql) ? hold(target.prepare(sql)) : target.prepare(sql));
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
