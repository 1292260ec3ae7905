import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app-env";
import { createLoginLink, LOGIN_LINK_TTL_MS, loginUrl } from "../auth/login-links";
import { publicOrigin } from "../auth/oauth";
import { bearerSecurity } from "../http/router";
import { IMPORT_MAX_BYTES, IMPORT_MAX_LINE_BYTES, IMPORT_MAX_LINES } from "../portability/archive";
import { archiveStream, exportMind } from "../portability/export";
import { FORMAT_MEDIA_TYPES, IMPORT_FORMATS, importFormatOf } from "../portability/import/formats";
import { IMPORT_INLINE_MAX_BYTES, importMind } from "../portability/import/request";
import { eraseMind, followImport } from "../portability/mind-operations";
import { createMindKey, keyName, listMindKeys, revokeMindKey } from "../tenancy/keys";
import { createMind, getMind, listMinds, type Mind, mindInputSchema, mindPatchSchema, updateMind } from "../tenancy/minds";
import { agentName } from "../tenancy/principal";
import { mindSettingsSchema } from "../tenancy/settings";
import { ErrorSchema, guardedResponses, jsonBody, jsonContent } from "./schemas";

const MindSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    locale: z.string(),
    retention_hours: z.number().nullable(),
    settings: mindSettingsSchema,
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Mind");

/** A mind as its owner sees it: where its data lives is the operator's business (GET /shards). */
const shown = ({ shard: _shard, moving: _moving, webhooks: _webhooks, ...mind }: Mind) => mind;

const MindCreate = mindInputSchema;
const MindPatch = mindPatchSchema;

const KeySchema = z
  .object({
    id: z.string(),
    prefix: z.string(),
    agent: z.string().nullable(),
    name: z.string().nullable().openapi({ description: "What its owner named it; null: unnamed" }),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .openapi("MindKey");

const KeyCreate = z.strictObject({
  agent: agentName.optional(),
  name: keyName.optional().openapi({ description: "What holds the key (an agent, a tool, a machine), shown in key lists" }),
});

/**
 * The format an import's request says; a refusal is for the mind's owner only: anyone else is
 * answered as for any other request on that mind (the mind read only when the format is refused).
 */
async function importFormatFor(vars: { deps: Parameters<typeof getMind>[0]; accountId: string }, mindId: string, contentType: string | undefined, asked: string | undefined) {
  try {
    return importFormatOf(contentType, asked);
  } catch (err) {
    await getMind(vars.deps, vars.accountId, mindId);
    throw err;
  }
}

/** Largest archive POST /minds/:id/import accepts (every other route keeps the small default). */
export const IMPORT_MAX_BODY_BYTES = IMPORT_MAX_BYTES;

const MindParams = z.object({ id: z.string().max(100) });
const ImportParams = z.object({ id: z.string().max(100), importId: z.string().max(100) });

const ImportCountsSchema = z
  .object({
    memories: z.number(), memory_history: z.number(), notes: z.number(), cold_memory: z.number(),
    cold_versions: z.number(), chats: z.number(), sessions: z.number(), messages: z.number(),
  })
  .openapi("ImportCounts");

const ArchiveImportSchema = z
  .object({
    id: z.string(),
    mind_id: z.string(),
    state: z.enum(["queued", "running", "undoing", "done", "failed"]).openapi({
      description: "queued → running → done; an import that cannot finish goes undoing → failed, and the mind is as it was before",
    }),
    rows_total: z.number(),
    rows_written: z.number(),
    counts: ImportCountsSchema,
    error: z.object({ code: z.string(), message: z.string() }).nullable().openapi({ description: "Why a failed import failed (a code of the error body)" }),
    created_at: z.string(),
    updated_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .openapi("ArchiveImport");
const LoginLinkSchema = z
  .object({ url: z.string(), expires_at: z.string() })
  .openapi("LoginLink", { description: `A one-time link that signs its opener into the web UI, in this mind; it works once, for ${LOGIN_LINK_TTL_MS / 60_000} minutes` });

const KeyParams = z.object({ id: z.string().max(100), keyId: z.string().max(100) });
const tags = ["minds"];

const ErasureReceiptSchema = z
  .object({
    deleted: z.record(z.string(), z.number()).describe("Rows the mind held when its erasure began, per table"),
    finished: z.boolean(),
    left: z.record(z.string(), z.number()).optional().describe("Rows still to erase, per table, while it goes on"),
  })
  .openapi("ErasureReceipt");

export const mindRoutes = createRouter();

mindRoutes
  .openapi(
    createRoute({
      method: "post", path: "/", summary: "Create a mind", tags, security: bearerSecurity,
      request: { body: jsonBody(MindCreate) },
      responses: { 201: jsonContent(MindSchema, "The new mind"), ...guardedResponses },
    }),
    async (c) => c.json(shown(await createMind(c.var.deps, c.var.accountId, c.req.valid("json"))), 201),
  )
  .openapi(
    createRoute({
      method: "get", path: "/", summary: "List your minds", tags, security: bearerSecurity,
      responses: { 200: jsonContent(z.object({ minds: z.array(MindSchema) }), "Your minds"), ...guardedResponses },
    }),
    async (c) => c.json({ minds: (await listMinds(c.var.deps, c.var.accountId)).map(shown) }, 200),
  )
  .openapi(
    createRoute({
      method: "get", path: "/{id}", summary: "Get a mind and its settings", tags, security: bearerSecurity,
      request: { params: MindParams },
      responses: { 200: jsonContent(MindSchema, "The mind"), ...guardedResponses },
    }),
    async (c) => c.json(shown(await getMind(c.var.deps, c.var.accountId, c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({
      method: "patch", path: "/{id}", summary: "Change a mind's name, locale, retention or settings", tags,
      security: bearerSecurity,
      request: { params: MindParams, body: jsonBody(MindPatch) },
      responses: { 200: jsonContent(MindSchema, "The updated mind"), ...guardedResponses },
    }),
    async (c) =>
      c.json(shown(await updateMind(c.var.deps, c.var.accountId, c.req.valid("param").id, c.req.valid("json"))), 200),
  )
  .openapi(
    createRoute({
      method: "delete", path: "/{id}", summary: "Erase a mind and everything in it", tags, security: bearerSecurity,
      request: { params: MindParams },
      responses: {
        200: jsonContent(ErasureReceiptSchema, "Erased: the rows the mind held, per table"),
        202: jsonContent(ErasureReceiptSchema, "Erasing: the mind answers as missing everywhere, its rows go in the background; ask again for the progress"),
        ...guardedResponses,
      },
    }),
    async (c) => {
      const receipt = await eraseMind(c.var.deps, c.var.accountId, c.req.valid("param").id);
      return receipt.finished ? c.json(receipt, 200) : c.json(receipt, 202);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/{id}/export", tags, security: bearerSecurity,
      summary: "Export the mind as JSONL: memories with history, notes, cold memory with versions, chats, sessions, messages",
      request: { params: MindParams },
      responses: {
        200: {
          description: "One JSON object per line, the header first (format edgemind-mind, version 1), then memories, history, notes, cold memory, versions, chats, sessions, messages",
          content: { "application/x-ndjson": { schema: z.string().openapi({ example: '{"type":"header","format":"edgemind-mind","version":1}\n' }) } },
        },
        ...guardedResponses,
      },
    }),
    async (c) => {
      const mind = await getMind(c.var.deps, c.var.accountId, c.req.valid("param").id);
      const stream = archiveStream(exportMind(c.var.deps, c.var.accountId, mind.id));
      const name = `edgemind-${mind.id}-${c.var.deps.clock.now().toISOString().slice(0, 10)}.jsonl`;
      const response = c.body(stream, 200, {
        "Content-Type": "application/x-ndjson; charset=utf-8",
        "Content-Disposition": `attachment; filename="${name}"`,
      });
      // The typed responses take "x-ndjson" for one JSON value; the body is a stream of lines.
      return response as unknown as never;
    },
  )
  .openapi(
    createRoute({
      method: "post", path: "/{id}/import", tags, security: bearerSecurity,
      summary: `Restore an export, a mem0 export or a Letta Agent File into this mind, which must be empty (409 otherwise); up to ${IMPORT_MAX_BYTES / 1024 / 1024} MB`,
      description:
        `The file is checked as a whole before anything is written. An edgemind archive (JSON lines, the default) has at most ${IMPORT_MAX_LINES} lines of at most ${IMPORT_MAX_LINE_BYTES / 1024} KB. ` +
        "A mem0 export or a Letta Agent File is one JSON document, named by its Content-Type or by ?format= (plain application/json needs ?format=); " +
        "it is read value by value and converted into the archive's rows (README: \"Imports from mem0 and Letta\" has the mapping). " +
        `A file of up to ${IMPORT_INLINE_MAX_BYTES / 1024 / 1024} MB is checked by the request (400 naming the first bad line, or a peer's field by its path and line) and written before the answer (200, \`imported\` per table). ` +
        "A larger one is read as a stream and stored, then checked and written in the background: 202 with the import, whose progress GET /minds/{id}/import/{importId} (the Location header) shows; " +
        "a bad line or field fails the import with the same error and nothing is written. An import that fails leaves the mind as it was.",
      request: {
        params: MindParams,
        query: z.object({
          format: z.enum(IMPORT_FORMATS).optional().openapi({ description: "What the body is: archive (the default), mem0 or letta; needed for a body sent as plain application/json" }),
        }),
        // A peer's file's media types are added to the document by declarePeerImports (import-body.ts).
        body: { required: true, content: { [FORMAT_MEDIA_TYPES.archive]: { schema: z.string().openapi({ description: "edgemind's archive: JSON lines, as GET /minds/{id}/export writes them" }) } } },
      },
      responses: {
        200: jsonContent(z.object({ imported: ImportCountsSchema, import: ArchiveImportSchema }), "Written: rows restored, per table"),
        202: {
          ...jsonContent(z.object({ import: ArchiveImportSchema }), "Stored: the file is checked and its rows written in the background"),
          headers: z.object({ Location: z.string().openapi({ description: "The import: GET it to follow it" }) }),
        },
        ...guardedResponses,
        409: { description: "The mind is not empty, or an import into it is under way", content: { "application/json": { schema: ErrorSchema } } },
        413: { description: "The file, a line, the number of lines, or the archive a peer's file converts to is over its bound", content: { "application/json": { schema: ErrorSchema } } },
      },
    }),
    async (c) => {
      const body = c.req.raw.body ?? [];
      const id = c.req.valid("param").id;
      const format = await importFormatFor(c.var, id, c.req.header("Content-Type"), c.req.valid("query").format);
      const archiveImport = await importMind(c.var.deps, c.var.accountId, id, body, format);
      if (archiveImport.state === "done") return c.json({ imported: archiveImport.counts, import: archiveImport }, 200);
      c.header("Location", `/minds/${id}/import/${archiveImport.id}`);
      return c.json({ import: archiveImport }, 202);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/{id}/import/{importId}", tags, security: bearerSecurity,
      summary: "Follow an import: its state, rows written of the total, and why it failed",
      request: { params: ImportParams },
      responses: { 200: jsonContent(ArchiveImportSchema, "The import"), ...guardedResponses },
    }),
    async (c) => {
      const { id, importId } = c.req.valid("param");
      return c.json(await followImport(c.var.deps, c.var.accountId, id, importId), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post", path: "/{id}/keys", summary: "Create a mind key (shown once)", tags, security: bearerSecurity,
      request: { params: MindParams, body: jsonBody(KeyCreate) },
      responses: {
        201: jsonContent(KeySchema.extend({ key: z.string() }), "The key, with its secret"),
        ...guardedResponses,
        409: { description: "The mind holds the most unrevoked keys it may: revoke one first", content: { "application/json": { schema: ErrorSchema } } },
      },
    }),
    async (c) => {
      const mind = await getMind(c.var.deps, c.var.accountId, c.req.valid("param").id);
      return c.json(await createMindKey(c.var.deps, mind.id, { agent: c.req.valid("json").agent ?? null, name: c.req.valid("json").name ?? null }), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/{id}/keys", summary: "List a mind's keys (prefixes only): the unrevoked first, at most 200", tags, security: bearerSecurity,
      request: { params: MindParams },
      responses: { 200: jsonContent(z.object({ keys: z.array(KeySchema) }), "The keys"), ...guardedResponses },
    }),
    async (c) => {
      const mind = await getMind(c.var.deps, c.var.accountId, c.req.valid("param").id);
      return c.json({ keys: await listMindKeys(c.var.deps, mind.id) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete", path: "/{id}/keys/{keyId}", summary: "Revoke a mind key", tags, security: bearerSecurity,
      request: { params: KeyParams },
      responses: { 204: { description: "Revoked" }, ...guardedResponses },
    }),
    async (c) => {
      const { id, keyId } = c.req.valid("param");
      const mind = await getMind(c.var.deps, c.var.accountId, id);
      await revokeMindKey(c.var.deps, mind.id, keyId);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "post", path: "/{id}/login-link", summary: "A one-time web UI login link for this mind (as the bot's /login gives)", tags,
      security: bearerSecurity,
      request: { params: MindParams },
      responses: { 201: jsonContent(LoginLinkSchema, "The link, shown once"), ...guardedResponses },
    }),
    async (c) => {
      const mind = await getMind(c.var.deps, c.var.accountId, c.req.valid("param").id);
      const link = await createLoginLink(c.var.deps, { accountId: c.var.accountId, mindId: mind.id });
      return c.json({ url: loginUrl(publicOrigin(c.env, c.req.url), link.token), expires_at: link.expires_at }, 201);
    },
  );

