import { readFileSync } from "node:fs";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";

// Bench jobs run inside workerd like the Worker itself. The node runner passes a job's input
// as a JSON file named by BENCH_INPUT; the job prints its result on one marked stdout line.
const root = path.join(import.meta.dirname, "..");
const migrations = await readD1Migrations(path.join(root, "migrations"));
const inputFile = process.env.BENCH_INPUT;
const input: unknown = inputFile ? JSON.parse(readFileSync(inputFile, "utf8")) : {};

export default defineConfig({
  root,
  plugins: [
    cloudflareTest({
      wrangler: { configPath: path.join(root, "wrangler.toml") },
      miniflare: {
        // The suite's helpers start files from new databases, UPGRADE_DB among them (test/support/fresh-databases.ts).
        d1Databases: ["UPGRADE_DB"],
        bindings: {
          TEST_MIGRATIONS: migrations,
          BENCH_INPUT: input as Record<string, unknown>,
          ADMIN_TOKEN: "bench-admin-token-0123456789",
          JWT_SECRET: "bench-jwt-secret-0123456789abcdef",
          // Jobs write far faster than any client, all from one address (the fuzzer fails
          // authentication on purpose): the rate limits are off here, as in the tests.
          RATE_LIMIT_AUTH_FAILURES_PER_IP: "0",
          RATE_LIMIT_AUTH_FAILURES_PER_KEY: "0",
          RATE_LIMIT_REQUESTS: "off",
          // Every job runs within Cloudflare's per-invocation limits, as the tests do (src/limits/platform.ts).
          INVOCATION_GUARD: "1",
          RATE_LIMIT_REGISTRATIONS_PER_IP: "0",
          // Webhooks' secrets are sealed under this key; receivers' names are answered by the jobs' stand-in resolver.
          WEBHOOK_ENCRYPTION_KEY: "bench-webhook-encryption-key-0123456789abcdef",
          WEBHOOK_DNS_URL: "https://dns.test/dns-query",
          // A part may set more (the backlog part points the model at its stand-in).
          ...((input as { bindings?: Record<string, string> }).bindings ?? {}),
        },
      },
    }),
  ],
  test: {
    setupFiles: [path.join(root, "test/setup.ts")],
    include: ["bench/jobs/*.job.ts"],
    testTimeout: 3_600_000,
    hookTimeout: 600_000,
    fileParallelism: false,
  },
});
