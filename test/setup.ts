import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, afterEach, vi } from "vitest";
import { takePassedLimits } from "../src/limits/platform";

// Every database gets the same migrations: the directory (DB) and each shard. The runtime and
// its storage are shared by the files (vitest.config.ts): the first file applies them, the next
// ones find them listed in d1_migrations and apply nothing.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await applyD1Migrations(env.SHARD_1!, env.TEST_MIGRATIONS);

// A spy a file installs for its whole run (the Telegram stand-in on fetch) ends with the file.
afterAll(() => {
  vi.restoreAllMocks();
});

// An invocation that passed a platform limit fails its test, even when the code caught the error.
afterEach(() => {
  const passed = takePassedLimits();
  if (passed.length > 0) throw new Error(`Cloudflare would refuse: ${passed.map((e) => e.message).join("; ")}`);
});
