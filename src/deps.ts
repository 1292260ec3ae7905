import type { Clock } from "./clock";
import type { Db } from "./db/client";
import type { Shards } from "./db/shards";
import type { Semantic } from "./embeddings/ports";

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
