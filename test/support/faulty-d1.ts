import { env } from "cloudflare:workers";

/** Where an injected fault strikes: before the call reaches D1, or after D1 did the work (the answer is lost). */
export type FaultMode = "before" | "after";

export interface FaultPlan {
  /** The 1-based D1 call to fail; Infinity fails none. */
  failAt: number;
  mode: FaultMode;
  /** D1 calls made so far. */
  calls: number;
}

export class InjectedFault extends Error {}

async function through<T>(plan: FaultPlan, work: () => Promise<T>): Promise<T> {
  const n = ++plan.calls;
  if (n === plan.failAt && plan.mode === "before") throw new InjectedFault(`injected fault before D1 call ${n}`);
  const result = await work();
  if (n === plan.failAt && plan.mode === "after") throw new InjectedFault(`injected fault after D1 call ${n}`);
  return result;
}

class FaultyStatement {
  constructor(
    readonly real: D1PreparedStatement,
    private readonly plan: FaultPlan,
  ) {}
  bind(...values: unknown[]) {
    return new FaultyStatement(this.real.bind(...values), this.plan);
  }
  first(column?: string) {
    return through(this.plan, () => (column === undefined ? this.real.first() : this.real.first(column)));
  }
  run() {
    return through(this.plan, () => this.real.run());
  }
  all() {
    return through(this.plan, () => this.real.all());
  }
  raw(options?: { columnNames?: boolean }) {
    return through(this.plan, () => (options?.columnNames ? this.real.raw({ columnNames: true }) : this.real.raw()));
  }
}

/**
 * A D1 binding that counts every round trip (a statement run or a batch) and fails the one the
 * plan names, so a test can fault each D1 call of an operation in turn.
 */
export function faultyD1(real: D1Database, plan: FaultPlan): D1Database {
  const wrapper = {
    prepare: (query: string) => new FaultyStatement(real.prepare(query), plan),
    batch: (statements: FaultyStatement[]) => through(plan, () => real.batch(statements.map((s) => s.real))),
    exec: (query: string) => through(plan, () => real.exec(query)),
    dump: () => real.dump(),
    withSession: () => {
      throw new Error("not used");
    },
  };
  return wrapper as unknown as D1Database;
}

/**
 * The D1 calls to fault out of `calls`: every one when `sample` covers them, otherwise the
 * first and the last few and a seeded pick of the rest (the same pick for the same seed).
 */
export function faultPoints(calls: number, sample: number, seed: number): number[] {
  const all = Array.from({ length: calls }, (_, i) => i + 1);
  if (sample >= calls) return all;
  let state = seed >>> 0 || 1;
  const random = () => ((state = (state * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32);
  const picked = new Set([1, 2, calls - 1, calls]);
  while (picked.size < sample) picked.add(1 + Math.floor(random() * calls));
  return [...picked].sort((a, b) => a - b);
}

/** How many D1 calls an operation's fault test faults: `fallback` in the suite, every one when the bench asks (`npm run bench -- faults`). */
export function faultSample(fallback: number): number {
  const input = (env as unknown as { BENCH_INPUT?: { faultSample?: number | null } }).BENCH_INPUT;
  return input?.faultSample === null ? Infinity : (input?.faultSample ?? fallback);
}

/** Per fault test: the D1 calls of the operation, and how many of them were faulted and checked. */
export const faultTally: Record<string, { calls: number; checked: number }> = {};
