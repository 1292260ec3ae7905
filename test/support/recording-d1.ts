/**
 * The round trips made to one database: each one's SQL (a batch is one trip, each
 * `first/all/run/raw` one), and how many of them were serial: the longest chain of trips each
 * begun after the one before it answered (a Promise.all of three trips is one serial trip).
 */
export class RoundTrips {
  readonly all: string[][] = [];
  /** The constraint or bookmark each session opened through this handle started at. */
  readonly starts: string[] = [];
  serial = 0;
  // The deepest chain among the trips answered so far: a trip begun now may depend on any of them.
  private answeredDepth = 0;

  note<T>(sqls: string[], answer: Promise<T>): Promise<T> {
    this.all.push(sqls);
    const depth = this.answeredDepth + 1;
    this.serial = Math.max(this.serial, depth);
    return answer.finally(() => {
      this.answeredDepth = Math.max(this.answeredDepth, depth);
    });
  }

  clear(): void {
    this.all.length = 0;
    this.starts.length = 0;
    this.serial = 0;
    this.answeredDepth = 0;
  }
}

/**
 * A D1 handle that notes the SQL of every statement it runs, one entry per statement (each
 * statement of a batch too), and runs it unchanged. `trips`, when given, notes each round trip.
 * Sessions the handle opens (`withSession`) are recorded the same way, their start in `trips.starts`.
 */
export function recordingD1(d1: D1Database, log: string[], trips = new RoundTrips()): D1Database {
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
            return trips.note([sql], (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
    raws.set(proxy, { raw: statement, sql });
    return proxy;
  };
  const database = <T extends D1Database | D1DatabaseSession>(real: T): T =>
    new Proxy(real, {
      get(target, prop, receiver) {
        if (prop === "prepare") return (sql: string) => wrap(target.prepare(sql), sql);
        if (prop === "batch") {
          return (list: D1PreparedStatement[]) => {
            const sqls = list.map((s) => raws.get(s)?.sql ?? "?");
            log.push(...sqls);
            return trips.note(sqls, target.batch(list.map((s) => raws.get(s)?.raw ?? s)));
          };
        }
        if (prop === "withSession" && "withSession" in target) {
          return (constraint?: string) => {
            trips.starts.push(constraint ?? "first-unconstrained");
            return database(target.withSession(constraint));
          };
        }
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  return database(d1);
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
