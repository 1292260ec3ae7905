import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app-env";
import { notFound } from "../errors";
import { bearerSecurity } from "../http/router";
import { listConsolidations } from "../notes/claims";
import { DIFF_MAX_EDITS, DIFF_MAX_LINES, diffCold, readCold, rollbackCold, startClientConsolidation, updateCold } from "../notes/cold-memory";
import { COLD_MAX_CHARS, COLD_STORED_MAX_CHARS, getColdVersion, listColdVersions } from "../notes/cold-store";
import { listNamespaces } from "../tenancy/namespaces";
import { NoteSchema } from "./notes";
import { AgentQuery, ErrorSchema, errorResponses, jsonBody, jsonContent, pageQuery } from "./schemas";

const ColdSchema = z
  .object({
    agent: z.string(),
    text: z.string(),
    version: z.number().int().openapi({ description: "0 before the first write" }),
    updated_at: z.string().nullable(),
  })
  .openapi("ColdMemory");

const NamespaceSchema = z
  .object({ agent: z.string(), memories: z.number(), notes: z.number(), cold_version: z.number().int().openapi({ description: "0: none written yet" }) })
  .openapi("Namespace");

const ColdRead = ColdSchema.extend({
  namespaces: z.array(NamespaceSchema).openapi({ description: "Every namespace of the mind holding anything (a scoped key: its own); read one with ?agent=" }),
});

// Paths and queries carry text; bodies carry JSON numbers and get no coercion.
const version = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const storedVersion = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
const bodyVersion = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const ColdUpdate = z.strictObject({
  text: z.string().max(COLD_STORED_MAX_CHARS).openapi({
    description:
      `The whole document: at most ${COLD_MAX_CHARS} characters, or up to ${COLD_STORED_MAX_CHARS} when it is no longer than ` +
      "the version it replaces or it closes a consolidation (with consolidation_id)",
  }),
  version: bodyVersion.openapi({ description: "The version you read; the write lands only if it is still current" }),
  consolidation_id: z.string().min(1).max(100).optional().openapi({ description: "Deletes exactly that consolidation's notes" }),
});

const VersionInfo = z
  .object({ version: z.number().int(), author: z.string(), consolidation_id: z.string().nullable(), created_at: z.string(), chars: z.number() })
  .openapi("ColdVersion");

const ConsolidationSchema = z
  .object({
    id: z.string(),
    agent: z.string(),
    status: z.string(),
    mode: z.string(),
    note_count: z.number(),
    attempts: z.number(),
    from_version: z.number().nullable(),
    to_version: z.number().nullable(),
    error: z.string().nullable().openapi({ description: "What failed, as `code: message`" }),
    error_code: z.string().nullable(),
    started_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .openapi("Consolidation");

const changed = { description: "memory_changed: the version is stale; nothing was written", content: { "application/json": { schema: ErrorSchema } } };
const guarded = { 400: errorResponses[400], 401: errorResponses[401], 403: errorResponses[403], 404: errorResponses[404] };
const agentOnly = z.object({ agent: AgentQuery });
const tags = ["cold memory"];

export const coldRoutes = createRouter();

coldRoutes
  .openapi(
    createRoute({
      method: "get", path: "/", tags, security: bearerSecurity, summary: "Cold memory: the consolidated document and its version",
      request: { query: agentOnly },
      responses: { 200: jsonContent(ColdRead, "Cold memory of one namespace (`?agent=`, default `default`), and every namespace you can read"), ...guarded },
    }),
    async (c) => {
      const mindContext = c.var.mindContext;
      const [cold, namespaces] = await Promise.all([readCold(mindContext), listNamespaces(mindContext)]);
      return c.json({ agent: mindContext.scope.agent, ...cold, namespaces }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "put", path: "/", tags, security: bearerSecurity,
      summary: "Write cold memory if `version` is current (compare-and-swap); with consolidation_id, delete its notes in the same batch",
      request: { query: agentOnly, body: jsonBody(ColdUpdate) },
      responses: { 200: jsonContent(ColdSchema.extend({ folded_notes: z.number() }), "Written"), ...guarded, 409: changed },
    }),
    async (c) => c.json({ agent: c.var.mindContext.scope.agent, ...(await updateCold(c.var.mindContext, c.req.valid("json"))) }, 200),
  )
  .openapi(
    createRoute({
      method: "get", path: "/versions", tags, security: bearerSecurity, summary: "Every version of cold memory, newest first",
      request: { query: z.object({ agent: AgentQuery, ...pageQuery }) },
      responses: { 200: jsonContent(z.object({ versions: z.array(VersionInfo) }), "Versions"), ...guarded },
    }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      return c.json({ versions: await listColdVersions(c.var.mindContext, { limit, offset }) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/versions/{version}", tags, security: bearerSecurity, summary: "One version of cold memory",
      request: { params: z.object({ version: storedVersion }), query: agentOnly },
      responses: { 200: jsonContent(VersionInfo.extend({ text: z.string() }), "The version"), ...guarded },
    }),
    async (c) => {
      const v = c.req.valid("param").version;
      const found = await getColdVersion(c.var.mindContext, v);
      if (!found) throw notFound(`cold memory version ${v}`);
      return c.json(found, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/diff", tags, security: bearerSecurity,
      summary: "Line diff between two versions (0 is the empty document; `to` defaults to the current version)",
      request: { query: z.object({ from: version.openapi({ param: { required: true } }), to: version.optional(), agent: AgentQuery }) },
      responses: {
        200: jsonContent(
          z.object({
            from: z.number().int(),
            to: z.number().int(),
            added: z.number(),
            removed: z.number(),
            patch: z.string(),
            exact: z.boolean().openapi({ description: `false when more than ${DIFF_MAX_EDITS} lines changed: the patch then replaces the whole document` }),
          }),
          "Unified diff and line counts",
        ),
        ...guarded,
        413: { description: `A version has more than ${DIFF_MAX_LINES} lines`, content: { "application/json": { schema: ErrorSchema } } },
      },
    }),
    async (c) => {
      const { from, to } = c.req.valid("query");
      const target = to ?? (await readCold(c.var.mindContext)).version;
      return c.json(await diffCold(c.var.mindContext, from, target), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post", path: "/rollback", tags, security: bearerSecurity,
      summary: "Make an earlier version's text the new current version",
      request: { query: agentOnly, body: jsonBody(z.strictObject({ version: bodyVersion.min(1) })) },
      responses: { 200: jsonContent(ColdSchema, "The new current version"), ...guarded, 409: changed },
    }),
    async (c) =>
      c.json({ agent: c.var.mindContext.scope.agent, ...(await rollbackCold(c.var.mindContext, c.req.valid("json").version)) }, 200),
  )
  .openapi(
    createRoute({
      method: "post", path: "/consolidations", tags, security: bearerSecurity,
      summary: "Claim waiting notes to merge yourself; finish with PUT /cold and the consolidation_id (claims expire after 30 minutes)",
      request: { query: agentOnly, body: jsonBody(z.strictObject({ limit: z.number().int().min(1).max(200).default(100) })) },
      responses: {
        200: jsonContent(
          z.object({ consolidation_id: z.string().nullable(), notes: z.array(NoteSchema), cold: ColdSchema }),
          "The claimed notes (none: consolidation_id is null) and the cold memory to merge them into",
        ),
        ...guarded,
      },
    }),
    async (c) => {
      const scope = c.var.mindContext.scope;
      const claim = await startClientConsolidation(c.var.mindContext, c.req.valid("json").limit);
      const cold = claim?.cold ?? (await readCold(c.var.mindContext));
      return c.json({ consolidation_id: claim?.consolidationId ?? null, notes: claim?.notes ?? [], cold: { agent: scope.agent, ...cold } }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/consolidations", tags, security: bearerSecurity, summary: "Recent consolidations, newest first",
      request: { query: z.object({ agent: AgentQuery, limit: pageQuery.limit }) },
      responses: { 200: jsonContent(z.object({ consolidations: z.array(ConsolidationSchema) }), "Consolidations"), ...guarded },
    }),
    async (c) => {
      return c.json({ consolidations: await listConsolidations(c.var.mindContext, c.req.valid("query").limit) }, 200);
    },
  );
