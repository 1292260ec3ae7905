import type { BindingDelays, TripKind } from "../lib/latency-data";

// Every binding the product reaches, wrapped in place on the isolate's env (the Worker's fetch,
// its Durable Objects and the queue consumer all read it), so each call is counted and waits
// its fixed network time before it is made. The Rate Limiting binding counts in-process: it is
// counted, never delayed.

/** A statement naming one of these tables is a round trip to the directory. */
const DIRECTORY_TABLE = /\b"?(accounts|minds|mind_keys|job_runs|login_links|telegram_updates|telegram_chats|oauth_grants|mind_moves|mind_erasures|shard_minds)"?\b/;
const WRITES = /^\s*(insert|update|delete|replace|create|drop|alter)\b/i;
const CTE_WRITES = /^\s*with\b[\s\S]*\)\s*(insert|update|delete|replace)\b/i;

const writes = (sql: string) => WRITES.test(sql) || CTE_WRITES.test(sql);

export interface Trip {
  kind: TripKind;
  /** The database (directory, shard), object class or binding. */
  target: string;
  /** A D1 read in a session that may start at a replica. */
  replica: boolean;
  statements: number;
  directoryStatements: number;
}

export const NO_DELAYS: BindingDelays = { primary: 0, replica: null, object: 0, kv: 0, queue: 0, ai: 0, vectorize: 0 };

/** What every wrapped binding reports to, and the delays it waits. */
export class Ledger {
  readonly trips: Trip[] = [];
  delays: BindingDelays = NO_DELAYS;

  clear(): void {
    this.trips.length = 0;
  }

  async pass(trip: Trip, ms: number): Promise<void> {
    this.trips.push(trip);
    if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  }
}

type Fn = (...args: unknown[]) => unknown;
const callable = (value: unknown): value is Fn => typeof value === "function";
/** What passes through a wrapper untouched: its class (checked by name, e.g. by runInDurableObject). */
const bound = (value: Fn, target: object, prop: string | symbol) => (prop === "constructor" ? value : value.bind(target));

/** A method of `target` that waits and is counted before it runs. */
function delayed(ledger: Ledger, target: object, prop: string, trip: () => Trip, ms: () => number): Fn {
  return async (...args: unknown[]) => {
    await ledger.pass(trip(), ms());
    // Called as a method, never through `.apply`: on an RPC stub that would be a remote property.
    return (target as Record<string, Fn>)[prop]!(...args);
  };
}

function wrapD1(ledger: Ledger, d1: D1Database, shardOnly: boolean): D1Database {
  const raws = new WeakMap<object, { raw: D1PreparedStatement; sql: string }>();
  const tripOf = (sqls: string[], mayReadReplica: boolean): { trip: Trip; ms: number } => {
    const directoryStatements = shardOnly ? 0 : sqls.filter((sql) => DIRECTORY_TABLE.test(sql)).length;
    const replica = mayReadReplica && ledger.delays.replica !== null && !sqls.some(writes);
    const trip = { kind: "D1" as const, target: directoryStatements > 0 ? "directory" : "shard", replica, statements: sqls.length, directoryStatements };
    return { trip, ms: replica ? ledger.delays.replica! : ledger.delays.primary };
  };
  const statement = (real: D1PreparedStatement, sql: string, mayReadReplica: boolean): D1PreparedStatement => {
    const proxy = new Proxy(real, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop);
        if (prop === "bind") return (...values: unknown[]) => statement(target.bind(...values), sql, mayReadReplica);
        if (!callable(value)) return value;
        if (prop === "all" || prop === "raw" || prop === "first" || prop === "run") {
          return async (...args: unknown[]) => {
            const { trip, ms } = tripOf([sql], mayReadReplica);
            await ledger.pass(trip, ms);
            return value.apply(target, args);
          };
        }
        return bound(value, target, prop);
      },
    });
    raws.set(proxy, { raw: real, sql });
    return proxy;
  };
  const database = <T extends D1Database | D1DatabaseSession>(real: T, mayReadReplica: boolean): T =>
    new Proxy(real, {
      get(target, prop) {
        if (prop === "prepare") return (sql: string) => statement(target.prepare(sql), sql, mayReadReplica);
        if (prop === "batch") {
          return async (list: D1PreparedStatement[]) => {
            const { trip, ms } = tripOf(list.map((s) => raws.get(s)?.sql ?? "?"), mayReadReplica);
            await ledger.pass(trip, ms);
            return target.batch(list.map((s) => raws.get(s)?.raw ?? s));
          };
        }
        // A session opened at any replica or at a bookmark may read from a replica; one opened at the primary never does.
        if (prop === "withSession" && "withSession" in target) {
          return (constraint?: string) => database(target.withSession(constraint), constraint !== "first-primary");
        }
        const value: unknown = Reflect.get(target, prop);
        return callable(value) ? bound(value, target, prop) : value;
      },
    });
  return database(d1, false);
}

/** A Durable Object namespace whose stubs wait before every call. */
function wrapObjects(ledger: Ledger, namespace: DurableObjectNamespace, name: string): DurableObjectNamespace {
  const PLAIN = new Set(["id", "name", "then"]);
  const stub = (real: DurableObjectStub): DurableObjectStub =>
    new Proxy(real, {
      get(target, prop) {
        if (typeof prop === "symbol" || PLAIN.has(prop)) return Reflect.get(target, prop);
        const trip = (): Trip => ({ kind: "DO", target: name, replica: false, statements: 0, directoryStatements: 0 });
        return delayed(ledger, target, prop, trip, () => ledger.delays.object);
      },
    });
  return new Proxy(namespace, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (!callable(value)) return value;
      if (prop === "get" || prop === "getByName") return (...args: unknown[]) => stub(value.apply(target, args) as DurableObjectStub);
      return bound(value, target, prop);
    },
  });
}

/** A binding whose named methods wait `ms` and are counted; everything else passes through. */
function wrapMethods<T extends object>(ledger: Ledger, binding: T, kind: TripKind, name: string, methods: string[], ms: () => number): T {
  return new Proxy(binding, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (!callable(value)) return value;
      if (typeof prop === "string" && methods.includes(prop)) {
        return delayed(ledger, target, prop, () => ({ kind, target: name, replica: false, statements: 0, directoryStatements: 0 }), ms);
      }
      return bound(value, target, prop);
    },
  });
}

const has = (value: unknown, ...methods: string[]) =>
  typeof value === "object" && value !== null && methods.every((m) => callable((value as Record<string, unknown>)[m]));

/** Wraps every binding of `env` in place; answers the names wrapped, by kind. */
export function delayBindings(env: Record<string, unknown>, ledger: Ledger): Record<string, string> {
  const wrapped: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    // The test pool's own services answer every property as a method: they are no binding of the product's.
    if (name.startsWith("__")) continue;
    let kind: TripKind | null = null;
    if (has(value, "prepare", "batch")) {
      env[name] = wrapD1(ledger, value as D1Database, name !== "DB");
      kind = "D1";
    } else if (has(value, "idFromName", "get")) {
      env[name] = wrapObjects(ledger, value as DurableObjectNamespace, name);
      kind = "DO";
    } else if (has(value, "getWithMetadata", "put")) {
      env[name] = wrapMethods(ledger, value as object, "KV", name, ["get", "getWithMetadata", "put", "delete", "list"], () => ledger.delays.kv);
      kind = "KV";
    } else if (has(value, "send", "sendBatch")) {
      env[name] = wrapMethods(ledger, value as object, "Queue", name, ["send", "sendBatch"], () => ledger.delays.queue);
      kind = "Queue";
    } else if (has(value, "query", "upsert")) {
      env[name] = wrapMethods(ledger, value as object, "Vectorize", name, ["query", "queryById", "insert", "upsert", "getByIds", "deleteByIds"], () => ledger.delays.vectorize);
      kind = "Vectorize";
    } else if (has(value, "run") && name === "AI") {
      env[name] = wrapMethods(ledger, value as object, "AI", name, ["run"], () => ledger.delays.ai);
      kind = "AI";
    } else if (has(value, "limit")) {
      env[name] = wrapMethods(ledger, value as object, "rate limit", name, ["limit"], () => 0);
      kind = "rate limit";
    }
    if (kind) wrapped[name] = kind;
  }
  return wrapped;
}
