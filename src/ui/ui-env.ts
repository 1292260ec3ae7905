import type { AppEnv } from "../app-env";
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
  };
}
