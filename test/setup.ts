import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

// Every database gets the same migrations: the directory (DB) and each shard.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await applyD1Migrations(env.SHARD_1!, env.TEST_MIGRATIONS);
