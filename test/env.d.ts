// Types of the test runtime: the Worker's bindings plus the migrations the setup file applies.
import type { D1Migration } from "cloudflare:test";
import type { Env as WorkerEnv } from "../src/config";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      TEST_MIGRATIONS: D1Migration[];
      UPGRADE_DB: D1Database;
    }
    interface GlobalProps {
      mainModule: typeof import("../src/index");
    }
  }
}
