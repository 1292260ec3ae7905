import type { Clock } from "./clock";
import type { Db } from "./db/client";
import type { Semantic } from "./embeddings/ports";

/** What domain functions need from the outside world. */
export interface Deps {
  db: Db;
  clock: Clock;
  /** Recall by meaning, when the deployment has an embedder and a vector index. */
  semantic?: Semantic | null;
  /** Runs work after the response (waitUntil); absent, such work is skipped and left to the hourly job. */
  defer?: (work: Promise<unknown>) => void;
}
