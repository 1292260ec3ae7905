import { Hono } from "hono";
import css from "swagger-ui-dist/swagger-ui.css";
import bundle from "swagger-ui-dist/swagger-ui-bundle.js";
import type { AppEnv } from "../app-env";

/**
 * `/docs`: swagger-ui rendering `/openapi.json`, every file served by the Worker itself, so the
 * page works offline and loads nothing from elsewhere. Its CSP allows only this origin's scripts.
 */
export const docsRoutes = new Hono<AppEnv>();

export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // swagger-ui sets style attributes from script.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>edgemind API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-url="/openapi.json"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;

const INIT = `window.ui = SwaggerUIBundle({ url: document.getElementById("swagger-ui").dataset.url, dom_id: "#swagger-ui", deepLinking: true, persistAuthorization: false });\n`;

const ASSETS: Record<string, { body: string; type: string }> = {
  "swagger-ui-bundle.js": { body: bundle, type: "text/javascript; charset=utf-8" },
  "swagger-ui.css": { body: css, type: "text/css; charset=utf-8" },
  "init.js": { body: INIT, type: "text/javascript; charset=utf-8" },
};

docsRoutes.use("/docs/*", async (c, next) => {
  await next();
  c.header("Content-Security-Policy", DOCS_CSP);
  c.header("X-Content-Type-Options", "nosniff");
});
docsRoutes.get("/docs", (c) => {
  c.header("Content-Security-Policy", DOCS_CSP);
  c.header("X-Content-Type-Options", "nosniff");
  return c.html(PAGE);
});
docsRoutes.get("/docs/assets/:file", (c) => {
  const asset = ASSETS[c.req.param("file")];
  if (!asset) return c.notFound();
  return c.body(asset.body, 200, { "Content-Type": asset.type, "Cache-Control": "public, max-age=3600" });
});
