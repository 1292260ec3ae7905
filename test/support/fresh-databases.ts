import { applyD1Migrations, reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { everyDatabase } from "./shards";

// The suite runs its files one after another in one shared runtime (vitest.config.ts), so the
// databases hold what the files before wrote. A file whose jobs sweep every mind (consolidation,
// collection, retention, backfill) and count what they did, or that needs UPGRADE_DB empty,
// starts from a new deployment instead: `beforeAll(freshDatabases)`.

/** Every binding's storage deleted (D1, Durable Objects, KV), then the directory and each shard migrated again. */
export async function freshDatabases(): Promise<void> {
  await reset();
  for (const db of everyDatabase()) await applyD1Migrations(db, env.TEST_MIGRATIONS);
}
