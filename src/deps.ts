import type { Clock } from "./clock";
import type { Db } from "./db/client";

/** What domain functions need from the outside world. */
export interface Deps {
  db: Db;
  clock: Clock;
}
