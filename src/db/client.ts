import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = ReturnType<typeof createDb>;

/** The one way domain code reaches D1. Every query on tenant data is scoped by mind. */
export function createDb(d1: D1Database) {
  return drizzle(d1, { schema });
}

/** The database that holds a mind's data. */
export function databaseOfMind(deps: { db: Db }, _mindId: string): Db {
  return deps.db;
}
