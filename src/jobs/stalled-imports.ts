import { sql } from "drizzle-orm";
import type { Deps } from "../deps";
import { IMPORT_STALLED_MS } from "../portability/import/imports";
import { startOperation } from "../portability/mind-operations";
import type { UnitOutcome, UnitSource } from "../queue/handlers";

/** On the mind's database: imports whose object stopped writing them, one unit each (sent by the daily retention). */
export const stalledImports: UnitSource = {
  page(_shard, after, limit, now) {
    const from = after === null ? sql`` : sql`and 'import ' || mind_id || ' ' || id > ${after}`;
    return sql`select 'import ' || mind_id || ' ' || id as unit from imports
      where state in ('checking', 'queued', 'running', 'undoing') and updated_at < ${stalledBefore(now)} ${from}
      order by mind_id, id limit ${limit}`;
  },
};

const stalledBefore = (now: Date) => new Date(now.getTime() - IMPORT_STALLED_MS).toISOString();

/**
 * Hands an import that stopped moving to the mind's operations object, which goes on from the import's
 * progress in the imports table (waking it is harmless if it still runs). This is how an import
 * written by the import objects of earlier deployments (deleted with their class, keeping only
 * the import's id and a failure count) resumes: everything else about it is in the database.
 */
export async function importUnit(deps: Deps, unit: { mindId: string; importId: string }): Promise<UnitOutcome> {
  await startOperation(deps, { kind: "import", mindId: unit.mindId, importId: unit.importId });
  return { status: "done", counts: { imports_resumed: 1 } };
}
