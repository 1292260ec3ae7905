import { systemClock, type Clock } from "./clock";
import type { Env } from "./config";
import type { Db } from "./db/client";
import { createShards, type Shards } from "./db/shards";
import type { Semantic } from "./embeddings/ports";
import { createSemantic } from "./embeddings/providers";

/** What domain functions need from the outside world. */
export interface Deps {
  /** The database to work in: the directory, or within a mind's context the mind's shard. */
  db: Db;
  /** Every database of the deployment; absent, `db` is the only one (directory and shard). */
  shards?: Shards;
  clock: Clock;
  /** Recall by meaning, when the deployment has an embedder and a vector index. */
  semantic?: Semantic | null;
  /** Runs work after the response (waitUntil); absent, such work is skipped and left to the hourly job. */
  defer?: (work: Promise<unknown>) => void;
}

/** Deps that know every database of the deployment. */
export type ShardedDeps = Deps & { shards: Shards };

/** The databases of the deployment (`db` is the directory) and a clock: what every entry point starts from. */
export function createDeps(env: Env, clock: Clock = systemClock): ShardedDeps {
  const shards = createShards(env);
  return { db: shards.directory, shards, clock };
}

/**
 * A Durable Object's deps: every database, the system clock, and work deferred past a call kept
 * alive by the object. With `semantic`, what it writes is embedded at once; without, by the hourly job.
 */
export function objectDeps(env: Env, ctx: DurableObjectState, options: { semantic: boolean }): ShardedDeps {
  return {
    ...createDeps(env),
    semantic: options.semantic ? createSemantic(env) : null,
    defer: (work) => ctx.waitUntil(work),
  };
}
