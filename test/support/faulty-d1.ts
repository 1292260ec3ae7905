import { env } from "cloudflare:workers";
import type { FaultTally } from "./fault-tally";

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

/** What the bench asks of the fault tests: every call (`faultSample: null`), and which share of the calls this run takes. */
interface FaultInput {
  faultSample?: number | null;
  /** Calls n with n % of === index; the bench runs `of` such shares at once, each in its own workerd. */
  faultShare?: { index: number; of: number };
}
const benchInput = () => (env as unknown as { BENCH_INPUT?: FaultInput }).BENCH_INPUT;

/**
 * The D1 calls to fault out of `calls`: every one when `sample` covers them, otherwise the
 * first and the last few, the `pinned` ones (faults that once broke the operation) and a
 * seeded pick of the rest (the same pick for the same seed).
 */
export function faultPoints(calls: number, sample: number, seed: number, pinned: number[] = []): number[] {
  const all = Array.from({ length: calls }, (_, i) => i + 1);
  if (sample >= calls) return all;
  let state = seed >>> 0 || 1;
  const random = () => ((state = (state * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32);
  const picked = new Set([1, 2, calls - 1, calls, ...pinned.filter((n) => n >= 1 && n <= calls)]);
  while (picked.size < sample + pinned.length) picked.add(1 + Math.floor(random() * calls));
  return [...picked].sort((a, b) => a - b);
}

/** How many D1 calls an operation's fault test faults: `fallback` in the suite, every one when the bench asks (`npm run bench -- faults`). */
export function faultSample(fallback: number): number {
  const input = benchInput();
  return input?.faultSample === null ? Infinity : (input?.faultSample ?? fallback);
}

export const faultTally: Record<string, FaultTally> = {};

/**
 * Runs `check` for each fault point (the bench's share of them), going on past a failing one so
 * one run names every failure; then fails if any did. The bench reads the tally.
 */
export async function checkEachFault(name: string, calls: number, points: number[], check: (failAt: number) => Promise<void>): Promise<FaultTally> {
  const share = benchInput()?.faultShare;
  const taken = share ? points.filter((n) => n % share.of === share.index) : points;
  const tally: FaultTally = (faultTally[name] = { calls, taken: taken.length, checked: 0, failures: [], seconds: 0 });
  const started = Date.now();
  for (const failAt of taken) {
    try {
      await check(failAt);
      tally.checked++;
    } catch (error) {
      tally.failures.push(`call ${failAt}: ${(error instanceof Error ? error.message : String(error)).split("\n").slice(0, 6).join(" ")}`);
    }
    tally.seconds = (Date.now() - started) / 1000;
    const done = tally.checked + tally.failures.length;
    // A progress line for the bench runner (bench/jobs/report.ts marks them so).
    if (benchInput() && (done % 10 === 0 || done === taken.length)) {
      console.log(`@@bench-progress ${name}: ${done}/${taken.length}, ${tally.failures.length} failed, ${tally.seconds.toFixed(0)} s`);
    }
  }
  if (tally.failures.length > 0) throw new Error(`${name}: ${tally.failures.length} of ${taken.length} faults broke it:\n${tally.failures.join("\n")}`);
  return tally;
}
