/** What an invocation's D1 statements cost, summed from each result's `meta`. */
export interface D1Totals {
  /** Statements run (a batch counts each of its statements). */
  d1_queries: number;
  /** Round trips to a database: a batch is one, each statement run alone one. */
  d1_round_trips: number;
  /** Of those, the ones whose answer carries no `meta` (`raw()`, drizzle's way of reading selected columns). */
  d1_unmetered: number;
  d1_rows_read: number;
  d1_rows_written: number;
  /** The database's own time, in ms, without the network. */
  d1_ms: number;
}

/** Counts the D1 work done through the bindings it wraps: one meter per request, queue message or cron run. */
export interface D1Meter {
  wrap(d1: D1Database): D1Database;
  totals(): D1Totals;
}

type Meta = Partial<Pick<D1Meta, "rows_read" | "rows_written" | "duration">>;
type Result = { meta?: Meta };

/** A database or a session of one: what drizzle and the code call on either. */
interface Target {
  prepare(query: string): D1PreparedStatement;
  batch(statements: D1PreparedStatement[]): Promise<Result[]>;
  withSession?(constraint?: string): object;
}

/** A meter whose wrapped bindings behave as the real ones and add each answer's meta to its totals. */
export function createD1Meter(): D1Meter {
  const totals: D1Totals = { d1_queries: 0, d1_round_trips: 0, d1_unmetered: 0, d1_rows_read: 0, d1_rows_written: 0, d1_ms: 0 };
  const reals = new WeakMap<object, D1PreparedStatement>();

  const count = <R extends Result>(result: R): R => {
    totals.d1_queries++;
    totals.d1_rows_read += result.meta?.rows_read ?? 0;
    totals.d1_rows_written += result.meta?.rows_written ?? 0;
    totals.d1_ms += result.meta?.duration ?? 0;
    return result;
  };

  const trip = <R>(answer: Promise<R>): Promise<R> => {
    totals.d1_round_trips++;
    return answer;
  };

  const statement = (real: D1PreparedStatement): D1PreparedStatement => {
    const wrapper = {
      bind: (...values: unknown[]) => statement(real.bind(...values)),
      all: async () => count(await trip(real.all())),
      run: async () => count(await trip(real.run())),
      // first() answers without meta; all() reads the same rows (D1 adds no LIMIT), so first is all's first row.
      first: async (column?: string) => firstOf((await wrapper.all()).results as Record<string, unknown>[], column),
      raw: (options?: { columnNames?: boolean }) => {
        totals.d1_queries++;
        totals.d1_unmetered++;
        return trip(options?.columnNames ? real.raw({ columnNames: true }) : real.raw());
      },
    };
    reals.set(wrapper, real);
    return wrapper as unknown as D1PreparedStatement;
  };

  const database = <T extends object>(real: T): T => {
    const target = real as unknown as Target;
    return new Proxy(real, {
      get(_, name) {
        if (name === "prepare") return (query: string) => statement(target.prepare(query));
        if (name === "batch")
          return async (statements: D1PreparedStatement[]) => (await trip(target.batch(statements.map((s) => reals.get(s) ?? s)))).map(count);
        if (name === "withSession" && target.withSession) return (constraint?: string) => database(target.withSession!(constraint));
        const value: unknown = Reflect.get(real, name, real);
        return typeof value === "function" ? value.bind(real) : value;
      },
    });
  };

  return { wrap: (d1) => database(d1), totals: () => ({ ...totals, d1_ms: Math.round(totals.d1_ms * 1000) / 1000 }) };
}

/** D1's first(): the first row, or one column of it (a column the row lacks is an error, as D1 says). */
function firstOf(rows: Record<string, unknown>[], column?: string): unknown {
  const row = rows[0];
  if (column === undefined) return row ?? null;
  if (row !== undefined && !(column in row)) throw new Error(`D1_COLUMN_NOTFOUND: Column not found (${column})`);
  return row?.[column] ?? null;
}
