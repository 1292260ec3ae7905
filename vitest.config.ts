import { readFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig, type Plugin } from "vitest/config";

const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));

/** Settings a developer may put in .dev.vars; empty means unset to src/config.ts. */
const LOCAL_SETTINGS = [
  "ENVIRONMENT",
  "PUBLIC_URL",
  "LLM_PROVIDER",
  "LLM_BASE_URL",
  "LLM_MODEL",
  "LLM_API_KEY",
  "EMBEDDINGS_PROVIDER",
  "EMBEDDINGS_BASE_URL",
  "EMBEDDINGS_MODEL",
  "EMBEDDINGS_API_KEY",
  "TELEGRAM_BOT_INFO",
  "RATE_LIMIT_WINDOW_SECONDS",
  "WEBHOOK_ALLOW_LOOPBACK",
];

/**
 * Packages' code read without their sourcemaps: several ship maps naming sources they leave out,
 * and vite warns about each; a stack trace into a package points at its built file instead.
 */
const withoutPackageSourcemaps: Plugin = {
  name: "without-package-sourcemaps",
  async load(id) {
    if (!id.includes("/node_modules/") || !/^\/[^?\0]*\.[cm]?js$/.test(id)) return null;
    const code = await readFile(id, "utf8").catch(() => null);
    return code === null ? null : { code: code.replace(/^\/\/# sourceMappingURL=.*$/gm, ""), map: null };
  },
};

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        // An empty database for tests that apply the migrations one by one to data already there.
        d1Databases: ["UPGRADE_DB"],
        // A request limiter with a tiny limit, for test/security/rate-limits.test.ts to put in place of one of wrangler.toml's.
        ratelimits: { TINY_RATE_LIMIT: { simple: { limit: 3, period: 60 } } },
        bindings: {
          TEST_MIGRATIONS: migrations,
          ADMIN_TOKEN: "test-admin-token-0123456789",
          JWT_SECRET: "test-jwt-secret-0123456789abcdef",
          // The bot talks to a stand-in Bot API that the tests capture (test/support/telegram.ts).
          TELEGRAM_BOT_TOKEN: "123456789:test-bot-token",
          TELEGRAM_WEBHOOK_SECRET: "test-webhook-secret-0123456789",
          TELEGRAM_BOT_USERNAME: "edgemind_test_bot",
          TELEGRAM_API_ROOT: "https://telegram.test",
          // Webhooks' secrets are sealed under this key; receivers' names are resolved by a stand-in
          // resolver the tests answer (test/support/webhooks.ts), never by one on the internet.
          WEBHOOK_ENCRYPTION_KEY: "test-webhook-encryption-key-0123456789abcdef",
          WEBHOOK_DNS_URL: "https://dns.test/dns-query",
          // Tests write far faster than any client should, all from one address: the limits are
          // off here (0), and test/security/rate-limits.test.ts pins them with low ones.
          RATE_LIMIT_AUTH_FAILURES_PER_IP: "0",
          RATE_LIMIT_AUTH_FAILURES_PER_KEY: "0",
          RATE_LIMIT_REQUESTS: "off",
          RATE_LIMIT_REGISTRATIONS_PER_IP: "0",
          // Production's limits per invocation, which local runs never enforce (src/limits/platform.ts).
          INVOCATION_GUARD: "1",
          // wrangler hands the tests whatever .dev.vars holds for `npm run dev` (a model, embeddings,
          // a public URL): blank every optional setting so the suite runs the same on any checkout.
          ...Object.fromEntries(LOCAL_SETTINGS.map((name) => [name, ""])),
        },
      },
    }),
    withoutPackageSourcemaps,
  ],
  test: {
    // A passing test's output (fault injection logs every injected failure) is dropped; a failing
    // test's is printed with it. `--silent=false` shows it all.
    silent: "passed-only",
    setupFiles: ["./test/setup.ts"],
    include: ["test/**/*.test.ts"],
    // Node-side tests (node --test): they read files from disk and use packages workerd cannot run.
    exclude: ["test/node/**", "**/node_modules/**"],
    testTimeout: 30_000,
    // A workerd runtime runs file after file: starting a runtime and loading the Worker's modules
    // for each file cost more than the tests. Its storage is shared too: tests use ids of their
    // own, and a file that needs a new deployment calls test/support/fresh-databases.ts.
    isolate: false,
    // Two runtimes at least (vitest would start one on two cores): each runs its tests on one thread.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
