import { type Context, Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { csrf } from "hono/csrf";
import { createMiddleware } from "hono/factory";
import { AppError } from "../errors";
import { handleError } from "../http/errors";
import { secretsEqual } from "../secrets";
import { openMindSession } from "../tenancy/bookmarks";
import { resolveMindContext } from "../tenancy/mind-context";
import { DICTIONARIES, pickLocale } from "./i18n";
import { activityPages } from "./pages/activity";
import { coldPages } from "./pages/cold";
import { appPages, authorizePages } from "./pages/connect";
import { dataPages } from "./pages/data";
import { keyPages } from "./pages/keys";
import { loginRoutes } from "./pages/login";
import { memoryPages } from "./pages/memories";
import { timelinePages } from "./pages/memory-timeline";
import { mindPages } from "./pages/minds";
import { sessionPages } from "./pages/sessions";
import { settingsPages } from "./pages/settings";
import { webhookPages } from "./pages/webhooks";
import { page } from "./render";
import { csrfToken, readUiSession, switchUiMind } from "./session";
import type { UiEnv } from "./ui-env";

/**
 * `/ui`: the web UI, server-rendered with Hono JSX. Every page is a thin view over the same
 * domain functions as the REST routes, in the signed-in person's scope.
 */
export const uiRoutes = new Hono<UiEnv>();

uiRoutes.use(
  "*",
  createMiddleware<UiEnv>(async (c, next) => {
    const asked = c.req.query("lang");
    const locale = pickLocale(asked, getCookie(c, "lang"), c.req.header("Accept-Language"));
    if (asked === locale) setCookie(c, "lang", locale, { path: "/ui", sameSite: "Lax", maxAge: 365 * 86_400 });
    c.set("locale", locale);
    c.set("t", DICTIONARIES[locale]);
    // No scripts, no outside resources; framing only by this site and Telegram's web client.
    c.header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'self' https://web.telegram.org");
    await next();
  }),
  // Cross-site form posts are refused by Origin / Sec-Fetch-Site before anything else runs.
  csrf(),
);

uiRoutes.route("/", loginRoutes);
// Connecting an app signs the person in itself: it may arrive from another site without the cookie.
uiRoutes.route("/", authorizePages);

uiRoutes.use(
  "*",
  createMiddleware<UiEnv>(async (c, next) => {
    const session = await readUiSession(c);
    if (!session) return c.redirect("/ui/login", 303);
    const token = await csrfToken(c, session);
    if (c.req.method === "POST") {
      const sent = (await c.req.parseBody())["_csrf"];
      if (typeof sent !== "string" || !(await secretsEqual(sent, token))) return c.text("forbidden: the form is stale, reload the page", 403);
    }
    c.set("session", session);
    c.set("csrf", token);
    await next();
  }),
);

uiRoutes.route("/", mindPages);

uiRoutes.use(
  "*",
  createMiddleware<UiEnv>(async (c, next) => {
    const session = c.var.session;
    if (session.mindId === null) return c.redirect("/ui/minds", 303);
    let mindContext;
    try {
      mindContext = await resolveMindContext(c.var.deps, { kind: "human", accountId: session.accountId }, { mindId: session.mindId });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== "not_found") throw err;
      await switchUiMind(c, session, null);
      return c.redirect("/ui/minds", 303);
    }
    // Pages read from a replica at least as new as the person's last position seen here; a form's POST starts at the primary.
    const reads = openMindSession(mindContext, null, { fresh: c.req.method !== "GET" && c.req.method !== "HEAD" });
    c.set("mindContext", reads.mindContext);
    await next();
    if (c.res.status < 400) reads.remember();
  }),
);

uiRoutes.get("/", (c) => c.redirect("/ui/memories", 303));
uiRoutes.route("/", memoryPages);
uiRoutes.route("/", timelinePages);
uiRoutes.route("/", activityPages);
uiRoutes.route("/", coldPages);
uiRoutes.route("/", sessionPages);
uiRoutes.route("/", dataPages);
uiRoutes.route("/", appPages);
uiRoutes.route("/", keyPages);
uiRoutes.route("/", webhookPages);
uiRoutes.route("/", settingsPages);

/** A failed action shows on a page in the UI's frame, not as the API's JSON. */
export function handleUiError(err: Error, c: Context<UiEnv>) {
  if (!(err instanceof AppError) || !c.var.t) return handleError(err, c);
  if (!c.var.session) return c.text(err.message, err.status);
  return page(c, err.code === "not_found" ? c.var.t.notFound : c.var.t.error, <p><a href="/ui">{c.var.t.back}</a></p>, {
    error: err.message,
    status: err.status,
  });
}

uiRoutes.onError(handleUiError);
