import type { Principal } from "./auth/principal";
import type { Env } from "./config";
import type { Deps } from "./deps";
import type { MindContext } from "./minds/context";

/** Hono's typing of this app: bindings, and what middleware puts on the context. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    deps: Deps;
    principal: Principal;
    /** Set by requireScope: the mind, scope and database the request works in. */
    mindContext: MindContext;
    /** Set by requireHuman. */
    accountId: string;
  };
}
