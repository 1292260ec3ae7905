import type { Principal, Scope } from "./auth/principal";
import type { Env } from "./config";
import type { Deps } from "./deps";

/** Hono's typing of this app: bindings, and what middleware puts on the context. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    deps: Deps;
    principal: Principal;
    scope: Scope;
    /** Set by requireHuman. */
    accountId: string;
  };
}
