import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import type { AppEnv } from "../app-env";
import { BOOKMARK_HEADER } from "../auth/middleware";
import { declarePeerImports } from "./import-body";
import { ErrorSchema } from "./schemas";

const MIND_ID_PARAMETER = {
  name: "X-Mind-Id",
  in: "header",
  required: false,
  description: "The mind to work in: required with a human's JWT, implied by a mind key (which may only repeat its own mind)",
  schema: { type: "string" },
} as const;

const BOOKMARK_PARAMETER = {
  name: BOOKMARK_HEADER,
  in: "header",
  required: false,
  description:
    "The bookmark the last answer for this mind carried in the same header (README: Growth): reads start at a copy of the database at least that new, so a client reads its own writes",
  schema: { type: "string", maxLength: 160 },
} as const;

const METHODS = ["get", "put", "post", "delete", "patch"] as const;
const error = (description: string) => ({ description, content: { "application/json": { schema: ErrorSchema } } });

type Document = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

/**
 * Declares X-Mind-Id and the bookmark (reusable header parameters) on every operation under
 * a mind-scoped prefix: the routes that work inside one mind.
 */
function declareMindHeader(document: Document, mindScoped: readonly string[]): Document {
  document.components = { ...document.components, parameters: { ...document.components?.parameters, MindId: MIND_ID_PARAMETER, Bookmark: BOOKMARK_PARAMETER } };
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (!mindScoped.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) continue;
    for (const method of METHODS) {
      const operation = item?.[method];
      if (operation) operation.parameters = [{ $ref: "#/components/parameters/MindId" }, { $ref: "#/components/parameters/Bookmark" }, ...(operation.parameters ?? [])];
    }
  }
  return document;
}

export interface ApiDescription {
  /** The prefixes of the resources that work inside one mind. */
  mindScoped: readonly string[];
}

/**
 * Documents the routes that are not zod-validated JSON routes (MCP, Telegram, health), serves
 * `/openapi.json`, and registers the bearer scheme.
 */
export function describeApi(app: OpenAPIHono<AppEnv>, { mindScoped }: ApiDescription) {
  const registry = app.openAPIRegistry;
  registry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "A human's JWT (from POST /auth/token) or a mind key (emk_…)",
  });
  registry.registerPath({
    method: "get", path: "/health", tags: ["service"], summary: "Liveness",
    responses: { 200: { description: "The Worker answers", content: { "application/json": { schema: z.object({ ok: z.literal(true), service: z.string() }) } } } },
  });
  registry.registerPath({
    method: "post", path: "/mcp", tags: ["mcp"], security: [{ bearer: [] }],
    summary: "Model Context Protocol over streamable HTTP (stateless, JSON responses); a mind key or an OAuth access token (discovery at /.well-known/oauth-protected-resource/mcp)",
    request: { body: { required: true, content: { "application/json": { schema: z.object({ jsonrpc: z.literal("2.0"), method: z.string() }).passthrough() } } } },
    responses: {
      200: { description: "A JSON-RPC response", content: { "application/json": { schema: z.object({ jsonrpc: z.literal("2.0") }).passthrough() } } },
      401: error("No mind key or access token; WWW-Authenticate names the protected resource metadata"),
    },
  });
  registry.registerPath({
    method: "post", path: "/telegram/webhook", tags: ["telegram"],
    summary: "Telegram's updates; the X-Telegram-Bot-Api-Secret-Token header must carry TELEGRAM_WEBHOOK_SECRET",
    request: {
      headers: z.object({ "X-Telegram-Bot-Api-Secret-Token": z.string() }),
      body: { required: true, content: { "application/json": { schema: z.object({ update_id: z.number().int() }).passthrough() } } },
    },
    responses: {
      200: { description: "Queued (or a re-delivery, or nothing to do)", content: { "application/json": { schema: z.object({ ok: z.boolean() }).passthrough() } } },
      400: error("Not a Telegram update"),
      401: error("Wrong or missing secret token"),
    },
  });
  registry.registerPath({
    method: "post", path: "/telegram/setup", tags: ["telegram"], security: [{ bearer: [] }],
    summary: "Registers the webhook and the command menus (English, Russian) with Telegram; ADMIN_TOKEN only",
    responses: {
      200: { description: "Registered", content: { "application/json": { schema: z.object({ ok: z.boolean(), webhook: z.string() }).passthrough() } } },
      401: error("Not the admin token"),
      403: error("A mind key or a person's token, not the admin token"),
    },
  });

  const config = {
    openapi: "3.1.0",
    info: {
      title: "edgemind",
      version: "0.1.0",
      description: "Memory for LLM agents and the people who work with them. Humans name the mind with X-Mind-Id.",
    },
  };
  let document: Document | null = null;
  app.get("/openapi.json", (c) => c.json((document ??= declarePeerImports(declareMindHeader(app.getOpenAPI31Document(config), mindScoped)))));
}
