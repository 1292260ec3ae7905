import { env } from "cloudflare:workers";
import type { Clock } from "../../src/clock";
import { createDb } from "../../src/db/client";
import { singleShard } from "../../src/db/shards";
import { createDeps, type Deps, type InShard } from "../../src/deps";
import { countingD1, openInvocations } from "../../src/limits/platform";
import type { LanguageModel } from "../../src/llm/providers";
import { bindMind, type MindContext } from "../../src/tenancy/mind-context";
import { getMindById } from "../../src/tenancy/minds";
import { DEFAULT_AGENT, type Scope } from "../../src/tenancy/principal";
import { dataOf } from "./shards";

/** A clock tests move by hand. */
export function manualClock(start: string | Date): Clock & { set(at: string | Date): void; advance(ms: number): void } {
  let now = new Date(start);
  return {
    now: () => new Date(now),
    set: (at) => {
      now = new Date(at);
    },
    advance: (ms) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

/** Domain dependencies over the test database, with an optional model and clock. */
export function testDeps(
  options: { llm?: LanguageModel | null; clock?: Clock; d1?: D1Database; wrap?: (d1: D1Database) => D1Database } = {},
): Deps {
  // `wrap` sees every database (a faulty or recording stand-in); given `d1`, the test works in that one alone.
  const wrap = counted(options.wrap);
  const deps = createDeps(env, { clock: options.clock ?? { now: () => new Date() }, semantic: false, wrap });
  const shards = options.d1 ? singleShard(createDb(wrap(options.d1))) : deps.shards;
  return { ...deps, directory: shards.directory, shards, model: () => options.llm ?? null };
}

/** Statements count toward whatever invocation a test runs as (test/support/jobs.ts: a producer run, a delivered unit). */
const counted =
  (wrap: (d1: D1Database) => D1Database = (d1) => d1) =>
  (d1: D1Database): D1Database =>
    countingD1(wrap(d1), openInvocations);

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/**
 * The mind context of a scope written out by hand (a test standing in for a front): the mind
 * is read here once, as a front's resolution would.
 */
export async function inMind(deps: Deps, scope: Pick<Scope, "mindId"> & Partial<Scope>): Promise<MindContext> {
  const mind = await getMindById(deps, scope.mindId);
  const principal = scope.principal ?? { kind: "system", job: "test", mindId: scope.mindId };
  return bindMind(deps, mind, { agent: DEFAULT_AGENT, agentFilter: null, ...scope, principal });
}

/** Test dependencies working in the database that holds the mind's data. */
export async function depsOfMind(mindId: string, options: Parameters<typeof testDeps>[0] = {}): Promise<InShard> {
  return { ...testDeps(options), shard: createDb(counted(options.wrap)(await dataOf(mindId))) };
}

/** The context of a mind (read once, as a job would) over test dependencies: a model, a clock, a recording handle. */
export async function contextOfMind(mindId: string, options: Parameters<typeof testDeps>[0] = {}): Promise<MindContext> {
  return inMind(testDeps(options), { mindId });
}
