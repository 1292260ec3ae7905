// Types of the test runtime: the Worker's bindings plus the migrations the setup file applies.
import type { D1Migration } from "cloudflare:test";

/** The Worker's own Env (src/worker-env.d.ts), named apart from the one declared below. */
type WorkerEnv = Env;

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
      UPGRADE_DB: D1Database;
      /** A request limiter of 3 per 60 s (vitest.config.ts), put in place of one of wrangler.toml's. */
      TINY_RATE_LIMIT: RateLimit;
      /** "1": each invocation fails past the platform's limits (src/limits/platform.ts). */
      INVOCATION_GUARD: string;
    }
    interface GlobalProps {
      mainModule: typeof import("../src/index");
    }
  }
}
