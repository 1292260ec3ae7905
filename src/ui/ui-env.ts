import type { AppEnv } from "../app-env";
import type { Scope } from "../auth/principal";
import type { Mind } from "../minds/minds";
import type { Dictionary, UiLocale } from "./i18n";
import type { UiSession } from "./session";

/** What the UI's middleware puts on the context for its pages. */
export interface UiEnv {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & {
    locale: UiLocale;
    t: Dictionary;
    session: UiSession;
    csrf: string;
    /** The mind the session works in. */
    mind: Mind;
    /** A person's scope over that mind: every namespace for reads, `default` for writes. */
    uiScope: Scope;
  };
}
