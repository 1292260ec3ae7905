import type { Context, MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";
import { routePath } from "hono/route";
import { authRoutes } from "./api/auth";
import { coldRoutes } from "./api/cold";
import { jobRoutes } from "./api/jobs";
import { memoryRoutes } from "./api/memory";
import { IMPORT_MAX_BODY_BYTES, mindRoutes } from "./api/minds";
import { noteRoutes } from "./api/notes";
import { describeApi } from "./api/openapi";
import { chatRoutes, sessionRoutes } from "./api/sessions";
import { shardRoutes } from "./api/shards";
import { usageRoutes } from "./api/usage";
import { webhookRoutes } from "./api/webhooks";
import { type AppEnv, createRouter } from "./app-env";
import { authenticate, requireAdmin, requireHuman, requireScope } from "./auth/middleware";
import { type Clock, systemClock } from "./clock";
import { configurationProblems } from "./config";
import { createDeps } from "./deps";
import { docsRoutes } from "./docs/routes";
import { type BodyLimit, limitBodies } from "./http/body-limit";
import { handleError, noRoute } from "./http/errors";
import { methodsServing } from "./http/router";
import { mcpRoutes } from "./mcp/routes";
import { COLD_STORED_MAX_CHARS } from "./notes/cold-store";
import { noteRequest, observationOf } from "./observe/request";
import { telegramRoutes, WEBHOOK_PATH } from "./telegram/webhook";
import { landingPage } from "./ui/landing";
import { uiRoutes } from "./ui/routes";

/** Work to finish after the response (waitUntil), where the runtime gives an execution context. */
function deferrer(c: Context<AppEnv>): ((work: Promise<unknown>) => void) | undefined {
  try {
    const ctx = c.executionCtx;
    return (work) => ctx.waitUntil(work);
  } catch {
    return undefined;
  }
}

export const MAX_BODY_BYTES = 64 * 1024;
/** Only an import carries a whole mind: over the API read as a stream, never held whole; the web UI's form is parsed whole, within the same bound. */
const IMPORT_PATH = /^(\/minds\/[^/]+|\/ui)\/import$/;

/**
 * A write of cold memory carries a whole document of up to COLD_STORED_MAX_CHARS characters, read
 * whole as it is written whole: as JSON (PUT /cold, update_memory over /mcp) at most 6 bytes a
 * character (`\u0001`), as the web UI's form at most 9 (`%E4%B8%AD`), with room for the other fields.
 */
export const COLD_JSON_MAX_BODY_BYTES = 6 * COLD_STORED_MAX_CHARS + 4 * 1024;
export const COLD_FORM_MAX_BODY_BYTES = 9 * COLD_STORED_MAX_CHARS + 4 * 1024;
const COLD_WRITE_PATHS = new Map([
  ["/cold", COLD_JSON_MAX_BODY_BYTES],
  ["/mcp", COLD_JSON_MAX_BODY_BYTES],
  ["/ui/cold", COLD_FORM_MAX_BODY_BYTES],
]);

/** Each path's bound on its body; Telegram's webhook reads its own, to acknowledge what is too large. */
function bodyLimitOf(path: string): BodyLimit | null {
  if (path === WEBHOOK_PATH) return null;
  if (IMPORT_PATH.test(path)) return { maxSize: IMPORT_MAX_BODY_BYTES, stream: true };
  return { maxSize: COLD_WRITE_PATHS.get(path) ?? MAX_BODY_BYTES, stream: false };
}

type Router = ReturnType<typeof createRouter>;

/**
 * Whether the deployment is configured for every route: `ok: false` (503) names each setting at
 * fault, never a value; the deploy check and `npm run dev` print the same list with its reasons.
 */
function health(c: Context<AppEnv>): Response {
  const settings = [...new Set(configurationProblems(c.env).map((p) => p.setting))];
  if (settings.length === 0) return c.json({ ok: true, service: "edgemind" });
  return c.json({ ok: false, service: "edgemind", not_configured: settings }, 503);
}

/** The REST resources that work inside one mind, at their prefixes: a human names the mind with X-Mind-Id. */
const MIND_SCOPED: [prefix: string, routes: Router][] = [
  ["/memory", memoryRoutes],
  ["/sessions", sessionRoutes],
  ["/chats", chatRoutes],
  ["/notes", noteRoutes],
  ["/cold", coldRoutes],
  ["/usage", usageRoutes],
];

/** Mounts a resource at its prefix, its guards registered once for everything under it. */
function mount(app: Router, prefix: string, routes: Router, ...guards: MiddlewareHandler<AppEnv>[]): void {
  app.use(`${prefix}/*`, ...guards);
  app.route(prefix, routes);
}

export interface AppOptions {
  clock?: Clock;
  /** Seen in place of each D1 binding (a test counting statements). */
  wrap?: (d1: D1Database) => D1Database;
}

/** The HTTP front: every route, the error shape, the OpenAPI document and its docs page. */
export function createApp(options: AppOptions = {}) {
  const clock = options.clock ?? systemClock;
  const app = createRouter();

  app.onError(handleError);
  app.notFound(noRoute(methodsServing(() => app.routes)));
  // Before the deps are built: a setting they read (embeddings) must not keep /health from listing it.
  app.get("/health", health);

  app.use(
    "*",
    limitBodies(bodyLimitOf),
    createMiddleware<AppEnv>(async (c, next) => {
      const meter = observationOf(c.req.raw)?.meter;
      // A test's wrap (a recording D1) sees the statements first; the meter counts them as D1 answers them.
      const wrap = meter && options.wrap ? (d1: D1Database) => options.wrap!(meter.wrap(d1)) : (meter?.wrap ?? options.wrap);
      c.set("deps", createDeps(c.env, { clock, defer: deferrer(c), ...(wrap && { wrap }) }));
      await next();
      // After the handler: the route that answered (its pattern, never the path with its ids) and the mind it worked in.
      const mind = c.get("mindContext")?.mind;
      noteRequest(c.req.raw, { route: routePath(c), mind: mind?.id, shard: mind?.shard });
    }),
  );

  app.get("/", landingPage);
  // Browsers ask every site for an icon; an empty answer, kept for a day, instead of a 404.
  app.get("/favicon.ico", (c) => c.body(null, 204, { "Cache-Control": "public, max-age=86400" }));
  app.route("/auth", authRoutes);
  mount(app, "/minds", mindRoutes, authenticate, requireHuman);
  app.route("/minds", webhookRoutes);
  for (const [prefix, routes] of MIND_SCOPED) mount(app, prefix, routes, authenticate, requireScope);
  mount(app, "/jobs", jobRoutes, requireAdmin);
  mount(app, "/shards", shardRoutes, requireAdmin);
  app.route("/", mcpRoutes);
  app.route("/ui", uiRoutes);
  app.route("/", telegramRoutes);
  app.route("/", docsRoutes);

  describeApi(app, { mindScoped: MIND_SCOPED.map(([prefix]) => prefix) });
  return app;
}
