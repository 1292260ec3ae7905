import type { Deps } from "./deps";
import { createValidatingRouter } from "./http/router";
import type { MindContext } from "./tenancy/mind-context";
import type { Principal } from "./tenancy/principal";

/** Hono's typing of this app: bindings, and what middleware puts on the context. */
export interface AppEnv {
  Bindings: Env;
  Variables: {
    /** Built per request: recall by meaning is known (null: none), so every path can rely on it. */
    deps: Deps;
    principal: Principal;
    /** Set by requireScope: the mind, scope and database the request works in. */
    mindContext: MindContext;
    /** Set by requireHuman. */
    accountId: string;
  };
}

/** A router of this app: its validation failures become the one 400 error shape. */
export const createRouter = () => createValidatingRouter<AppEnv>();
