import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

export type Db = ReturnType<typeof createDb>;

/**
 * The one way domain code reaches D1. Every query on tenant data is scoped by mind,
 * so spreading minds over several databases or read replicas later changes only this.
 */
export function createDb(d1: D1Database) {
  return drizzle(d1, { schema });
}
