import { bodyLimit } from "hono/body-limit";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { createSemantic } from "./embeddings/providers";
import { authRoutes } from "./api/auth";
import { coldRoutes } from "./api/cold";
import { errorBody, handleError } from "./http/errors";
import { jobRoutes } from "./api/jobs";
import { shardRoutes } from "./api/shards";
import { memoryRoutes } from "./api/memory";
import { IMPORT_MAX_BODY_BYTES, mindRoutes } from "./api/minds";
import { noteRoutes } from "./api/notes";
import { describeApi } from "./api/openapi";
import { createRouter } from "./http/router";
import { sessionRoutes } from "./api/sessions";
import { usageRoutes } from "./api/usage";
import type { AppEnv } from "./app-env";
import { systemClock, type Clock } from "./clock";
import { createDeps } from "./deps";
import { AppError } from "./errors";
import { docsRoutes } from "./docs/routes";
import { mcpRoutes } from "./mcp/routes";
import { landingPage } from "./ui/landing";
import { uiRoutes } from "./ui/routes";
import { telegramRoutes } from "./telegram/webhook";

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
/** Only an import carries a whole mind. */
const IMPORT_PATH = /^(\/minds\/[^/]+|\/ui)\/import$/;

export interface AppOptions {
  clock?: Clock;
}

/** The HTTP front: every route, the error shape, the OpenAPI document and its docs page. */
export function createApp(options: AppOptions = {}) {
  const clock = options.clock ?? systemClock;
  const app = createRouter();

  app.onError(handleError);
  app.notFound((c) => c.json(errorBody("not_found", `no route for ${c.req.method} ${c.req.path}`), 404));

  const limitBody = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw new AppError("payload_too_large", `request body is larger than ${maxSize} bytes`);
      },
    });
  const defaultLimit = limitBody(MAX_BODY_BYTES);
  const importLimit = limitBody(IMPORT_MAX_BODY_BYTES);
  app.use(
    "*",
    createMiddleware<AppEnv>((c, next) => (IMPORT_PATH.test(c.req.path) ? importLimit : defaultLimit)(c, next)),
    createMiddleware<AppEnv>(async (c, next) => {
      c.set("deps", { ...createDeps(c.env, clock), semantic: createSemantic(c.env), defer: deferrer(c) });
      await next();
    }),
  );

  app.get("/", landingPage);
  app.get("/health", (c) => c.json({ ok: true, service: "edgemind" }));
  // Browsers ask every site for an icon; an empty answer, kept for a day, instead of a 404.
  app.get("/favicon.ico", (c) => c.body(null, 204, { "Cache-Control": "public, max-age=86400" }));
  app.route("/", authRoutes);
  app.route("/", mindRoutes);
  app.route("/", memoryRoutes);
  app.route("/", sessionRoutes);
  app.route("/", noteRoutes);
  app.route("/", coldRoutes);
  app.route("/", usageRoutes);
  app.route("/", jobRoutes);
  app.route("/", shardRoutes);
  app.route("/", mcpRoutes);
  app.route("/ui", uiRoutes);
  app.route("/", telegramRoutes);
  app.route("/", docsRoutes);

  describeApi(app);
  return app;
}
