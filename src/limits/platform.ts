// Cloudflare's limits per invocation (a request, a cron run, a queue batch, a Durable Object
// request or alarm), which local runs never enforce. With INVOCATION_GUARD=1 (the tests'
// setting, never a deployment's) each entry point counts its D1 queries and subrequests and an
// invocation that passes a limit fails, as it would in production. Counting is the only
// difference: without the setting, every binding and function is handed on unchanged.

/** The limits of the paid plan: D1 queries per invocation, and subrequests (a conservative figure). */
export const PLATFORM_LIMITS = { d1Queries: 1000, subrequests: 1000 } as const;

/** What an invocation has used, against the platform's limits. */
export class InvocationTally {
  d1Queries = 0;
  subrequests = 0;
  /** The first limit passed: kept, so a product `catch` that swallows the error still fails the invocation. */
  exceeded: InvocationLimitExceeded | null = null;

  constructor(readonly label: string, readonly limits: { d1Queries: number; subrequests: number } = PLATFORM_LIMITS) {}

  /** Counts `n` D1 queries; passing the limit throws, as D1 refuses the query in production. */
  chargeQueries(n: number): void {
    this.d1Queries += n;
    if (this.d1Queries > this.limits.d1Queries) this.fail(`passed ${this.limits.d1Queries.toLocaleString("en")} D1 queries`);
  }

  /** Counts one subrequest (an outgoing fetch, a queue send). */
  chargeSubrequest(): void {
    this.subrequests++;
    if (this.subrequests > this.limits.subrequests) this.fail(`passed ${this.limits.subrequests.toLocaleString("en")} subrequests`);
  }

  /** Throws the limit passed, if any: the invocation's end. */
  check(): void {
    if (this.exceeded) throw this.exceeded;
  }

  private fail(what: string): never {
    this.exceeded ??= new InvocationLimitExceeded(`invocation ${this.label} ${what}`);
    throw this.exceeded;
  }
}

export class InvocationLimitExceeded extends Error {
  override name = "InvocationLimitExceeded";
}

/** The invocations a call counts toward. */
type Charged = () => Iterable<InvocationTally>;

const open = new Set<InvocationTally>();
/** Every limit passed since last taken: the test setup fails the test that caused one. */
const passed: InvocationLimitExceeded[] = [];

/** The invocations running now: what a counter that cannot tell its caller counts toward. */
export const openInvocations = (): Iterable<InvocationTally> => open;

/** Whether the test-only setting is on. */
export const guardEnabled = (env: object): boolean => (env as { INVOCATION_GUARD?: unknown }).INVOCATION_GUARD === "1";

/** The limits passed since the last call, forgotten once taken. */
export function takePassedLimits(): InvocationLimitExceeded[] {
  return passed.splice(0);
}

/**
 * Runs `work` as one invocation: its tally is open (outgoing fetches count toward it) until
 * it settles, and a limit passed fails it even when the work caught the error.
 */
export async function asInvocation<T>(tally: InvocationTally, work: () => Promise<T>): Promise<T> {
  openInvocation(tally);
  try {
    const result = await work();
    tally.check();
    return result;
  } finally {
    closeInvocation(tally);
  }
}

/** The invocation starts: outgoing fetches count toward it until it is closed. */
export function openInvocation(tally: InvocationTally): void {
  installFetchCounter();
  open.add(tally);
}

/** The invocation ended: a limit it passed is kept for the test setup to report. */
export function closeInvocation(tally: InvocationTally): void {
  if (open.delete(tally) && tally.exceeded) passed.push(tally.exceeded);
}

const chargeAll = (tallies: Charged, charge: (t: InvocationTally) => void) => {
  for (const t of tallies()) charge(t);
};

/** `env` with each D1 binding and queue counting toward `tallies` (the bindings a Worker or object sees). */
export function countingEnv<E extends object>(env: E, tallies: Charged): E {
  const counted: Record<string, unknown> = { ...(env as Record<string, unknown>) };
  for (const [name, value] of Object.entries(env)) {
    if (isD1(value)) counted[name] = countingD1(value, tallies);
    else if (isQueue(value)) counted[name] = countingQueue(value, tallies);
  }
  return counted as E;
}

const hasFunctions = (value: unknown, ...names: string[]): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && names.every((n) => typeof (value as Record<string, unknown>)[n] === "function");
const isD1 = (value: unknown): value is D1Database => hasFunctions(value, "prepare", "batch", "withSession");
const isQueue = (value: unknown): value is Queue => hasFunctions(value, "send", "sendBatch");

const RUNS = new Set<PropertyKey>(["all", "raw", "first", "run"]);

/** A D1 handle that counts each statement it runs toward `tallies` (each of a batch too), then runs it unchanged. */
export function countingD1(d1: D1Database, tallies: Charged): D1Database {
  const raws = new WeakMap<object, D1PreparedStatement>();
  const statement = (raw: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(raw, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        if (prop === "bind") return (...values: unknown[]) => statement(target.bind(...values));
        if (RUNS.has(prop)) {
          return (...args: unknown[]) => {
            chargeAll(tallies, (t) => t.chargeQueries(1));
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        }
        return (value as (...a: unknown[]) => unknown).bind(target);
      },
    });
    raws.set(proxy, raw);
    return proxy;
  };
  const database = <D extends object>(handle: D): D =>
    new Proxy(handle, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        const call = value as (...a: unknown[]) => unknown;
        if (prop === "prepare") return (sql: string) => statement(call.call(target, sql) as D1PreparedStatement);
        if (prop === "batch") {
          return (list: D1PreparedStatement[]) => {
            chargeAll(tallies, (t) => t.chargeQueries(list.length));
            return call.call(target, list.map((s) => raws.get(s) ?? s));
          };
        }
        if (prop === "exec") {
          return (sql: string) => {
            chargeAll(tallies, (t) => t.chargeQueries(sql.split(";").filter((s) => s.trim()).length));
            return call.call(target, sql);
          };
        }
        if (prop === "withSession") return (...args: unknown[]) => database(call.apply(target, args) as object);
        return call.bind(target);
      },
    });
  return database(d1);
}

/** A queue binding whose every send counts as one subrequest. */
function countingQueue(queue: Queue, tallies: Charged): Queue {
  return new Proxy(queue, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      const call = value as (...a: unknown[]) => unknown;
      if (prop !== "send" && prop !== "sendBatch") return call.bind(target);
      return (...args: unknown[]) => {
        chargeAll(tallies, (t) => t.chargeSubrequest());
        return call.apply(target, args);
      };
    },
  });
}

// Counters are known by identity, not by a mark on the function: a test's spy copies a
// function's own properties, so a mark would make a stand-in over the counter look like one.
const counters = new WeakSet<typeof fetch>();
let inCounter = false;

/**
 * Makes the global fetch count toward every open invocation: a fetch cannot tell which one
 * called it, so concurrent invocations may count each other's (over, never under). Installed
 * again over a stand-in a test put in its place; a fetch passing through two counters counts once.
 */
function installFetchCounter(): void {
  const current = globalThis.fetch;
  if (counters.has(current)) return;
  const counting = (...args: Parameters<typeof fetch>): ReturnType<typeof fetch> => {
    if (inCounter) return current(...args);
    chargeAll(() => open, (t) => t.chargeSubrequest());
    inCounter = true;
    try {
      return current(...args);
    } finally {
      inCounter = false;
    }
  };
  counters.add(counting as typeof fetch);
  globalThis.fetch = counting as typeof fetch;
}
