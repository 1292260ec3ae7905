import type { D1Migration } from "cloudflare:test";

/** The Worker's own Env (src/worker-env.d.ts), named apart from the one declared below. */
type WorkerEnv = Env;

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
      BENCH_INPUT: unknown;
    }
    interface GlobalProps {
      mainModule: typeof import("../../src/index");
    }
  }
}
