import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app-env";
import { bearerSecurity } from "../http/router";
import { parseDuration } from "../memory/duration";
import { asOfQuery, memoryPatchInput, memoryRecord, memoryStoreInput, memoryTag, searchQuery } from "../memory/fields";
import { memoryHistoryOf } from "../memory/history";
import { retrieveMemories } from "../memory/hybrid-search";
import { RECALL_LIMIT, RECALL_TOKENS, SEARCH_LIMIT } from "../memory/limits";
import {
  deleteMemory,
  expiringMemories,
  getMemory,
  listMemories,
  memoriesByTag,
  storeMemory,
  updateMemory,
  verifyMemory,
} from "../memory/memories";
import { recallMemories } from "../memory/recall";
import { CATEGORIES, SOURCES } from "../memory/rows";
import type { TimeView } from "../memory/time";
import { AgentQuery, countQuery, guardedResponses, jsonBody, jsonContent, pageQuery } from "./schemas";

// The memory as the domain shapes it; only what REST adds (the names in the document, the
// fields Synapse clients may send, `?include=`) is written here.
const MemorySchema = memoryRecord.openapi("Memory");

const contextQuery = z.enum(["context"]).optional().openapi({ description: "context: return each memory's context" });
const INCLUDED = "(context|superseded)";
const includeQuery = z
  .string()
  .max(40)
  .regex(new RegExp(`^${INCLUDED}(,${INCLUDED})?$`), "include is context, superseded, or both comma-separated")
  .optional()
  .openapi({
    description: "Comma-separated: context, each memory's context; superseded, replaced statements too, each with its validity (valid_until, superseded_by)",
  });
/** A read's time from its query: `as_of`, and whether `include` asks for replaced statements. */
const timeView = (query: { as_of?: string; include?: string }): TimeView => ({
  asOf: query.as_of,
  includeSuperseded: query.include?.split(",").includes("superseded") ?? false,
});
const includes = (include: string | undefined, what: string) => include?.split(",").includes(what) ?? false;
const asOf = asOfQuery.optional();
// Synapse clients may send fields the server owns; they are accepted and ignored.
const serverOwned = {
  id: z.unknown().optional(),
  mind_id: z.unknown().optional(),
  source: z.unknown().optional(),
  verified: z.unknown().optional(),
  created_at: z.unknown().optional(),
  updated_at: z.unknown().optional(),
  valid_from: z.unknown().optional(),
  valid_until: z.unknown().optional(),
  superseded_by: z.unknown().optional(),
};

const MemoryCreate = z.strictObject({ ...memoryStoreInput.shape, ...serverOwned });

const MemoryUpdate = z
  .strictObject({ ...memoryPatchInput.shape, ...serverOwned })
  .refine((b) => Object.keys(editableOnly(b)).length > 0, `give at least one of ${Object.keys(memoryPatchInput.shape).join(", ")}`);

function editableOnly<T extends Record<string, unknown>>(body: T) {
  const { id, mind_id, source, verified, created_at, updated_at, valid_from, valid_until, superseded_by, ...rest } = body;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as Omit<T, keyof typeof serverOwned>;
}

const IdParams = z.object({ id: z.string().max(100) });
const booleanQuery = z.enum(["true", "false"]).transform((v) => v === "true");
const categoryQuery = z.enum(CATEGORIES).optional();
const tags = ["memory"];
const MemoryList = z.object({ memories: z.array(MemorySchema) });

export const memoryRoutes = createRouter();

memoryRoutes
  .openapi(
    createRoute({
      method: "post", path: "/", tags, security: bearerSecurity,
      summary: "Store a memory; when (category, key) exists in the namespace it becomes its newest statement, the old one kept as replaced",
      request: { query: z.object({ agent: AgentQuery }), body: jsonBody(MemoryCreate) },
      responses: { 201: jsonContent(MemorySchema, "Created"), 200: jsonContent(MemorySchema, "Updated in place"), ...guardedResponses },
    }),
    async (c) => {
      const { memory, created } = await storeMemory(c.var.mindContext, editableOnly(c.req.valid("json")));
      return created ? c.json(memory, 201) : c.json(memory, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/", tags, security: bearerSecurity, summary: "List memories with filters",
      request: {
        query: z.object({
          category: categoryQuery,
          tag: memoryTag.optional(),
          source: z.enum(SOURCES).optional(),
          verified: booleanQuery.optional(),
          as_of: asOf,
          include: includeQuery,
          agent: AgentQuery,
          ...pageQuery,
        }),
      },
      responses: {
        200: jsonContent(MemoryList.extend({ total: z.number(), limit: z.number(), offset: z.number() }), "A page"),
        ...guardedResponses,
      },
    }),
    async (c) => {
      const { agent, as_of, include, ...filter } = c.req.valid("query");
      const page = await listMemories(c.var.mindContext, { ...filter, ...timeView({ as_of, include }) });
      return c.json({ ...page, limit: filter.limit, offset: filter.offset }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/recall", tags, security: bearerSecurity,
      summary: "Plain-text recall of what is valid now (or as_of): critical → low, then most recent, each with its date; expired hidden",
      request: {
        query: z.object({
          limit: countQuery(RECALL_LIMIT),
          category: categoryQuery,
          max_tokens: z.coerce.number().int().min(RECALL_TOKENS.min).max(RECALL_TOKENS.max).optional(),
          as_of: asOf,
          include: includeQuery,
          agent: AgentQuery,
        }),
      },
      responses: { 200: { description: "Recall text", content: { "text/plain": { schema: z.string() } } }, ...guardedResponses },
    }),
    async (c) => {
      const { limit, category, max_tokens, ...time } = c.req.valid("query");
      const recall = await recallMemories(c.var.mindContext, { limit, category, maxTokens: max_tokens, ...timeView(time) });
      c.header("X-Token-Count", String(recall.tokens));
      return c.text(recall.text, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/search", tags, security: bearerSecurity,
      summary: "Full-text search (Russian and English, stemmed) of what is valid now (or as_of), ranked by relevance, priority and recency",
      request: {
        query: z.object({
          q: searchQuery,
          tag: memoryTag.optional(),
          category: categoryQuery,
          limit: countQuery(SEARCH_LIMIT),
          as_of: asOf,
          include: includeQuery,
          agent: AgentQuery,
        }),
      },
      responses: {
        200: jsonContent(
          z.object({
            results: z.array(MemorySchema.extend({ score: z.number() })),
            retrieval: z.enum(["hybrid", "full_text"]).describe("full_text: full-text search alone; hybrid: fused with recall by meaning"),
          }),
          "Best first",
        ),
        ...guardedResponses,
      },
    }),
    async (c) => {
      const { include, as_of, agent, ...query } = c.req.valid("query");
      const options = { ...query, withContext: includes(include, "context"), ...timeView({ as_of, include }) };
      const { hits, retrieval } = await retrieveMemories(c.var.mindContext, options);
      return c.json({ results: hits.map(({ memory, score }) => ({ ...memory, score })), retrieval }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/by-tag", tags, security: bearerSecurity, summary: "Unexpired memories with a tag, valid now (or as_of)",
      request: { query: z.object({ tag: memoryTag, limit: pageQuery.limit, as_of: asOf, include: includeQuery, agent: AgentQuery }) },
      responses: { 200: jsonContent(MemoryList, "Most important first"), ...guardedResponses },
    }),
    async (c) => {
      const { tag, limit, ...time } = c.req.valid("query");
      return c.json({ memories: await memoriesByTag(c.var.mindContext, tag, limit, timeView(time)) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/expiring", tags, security: bearerSecurity,
      summary: "Memories expiring within a duration (30m, 12h, 7d)",
      request: { query: z.object({ within: z.string().max(10).default("7d"), limit: pageQuery.limit, agent: AgentQuery }) },
      responses: { 200: jsonContent(MemoryList, "Soonest first"), ...guardedResponses },
    }),
    async (c) => {
      const { within, limit } = c.req.valid("query");
      return c.json({ memories: await expiringMemories(c.var.mindContext, parseDuration(within), limit) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/{id}", tags, security: bearerSecurity, summary: "Get a memory, current or a past version",
      request: { params: IdParams, query: z.object({ include: contextQuery, agent: AgentQuery }) },
      responses: { 200: jsonContent(MemorySchema, "The memory"), ...guardedResponses },
    }),
    async (c) =>
      c.json(await getMemory(c.var.mindContext, c.req.valid("param").id, c.req.valid("query").include === "context"), 200),
  )
  .openapi(
    createRoute({
      method: "put", path: "/{id}", tags, security: bearerSecurity,
      summary: "Correct a current memory's fields in place (its history keeps the change); a past version is 409",
      request: { params: IdParams, query: z.object({ agent: AgentQuery }), body: jsonBody(MemoryUpdate) },
      responses: { 200: jsonContent(MemorySchema, "The updated memory"), ...guardedResponses },
    }),
    async (c) =>
      c.json(await updateMemory(c.var.mindContext, c.req.valid("param").id, editableOnly(c.req.valid("json"))), 200),
  )
  .openapi(
    createRoute({
      method: "delete", path: "/{id}", tags, security: bearerSecurity, summary: "Delete a memory (its history stays)",
      request: { params: IdParams, query: z.object({ agent: AgentQuery }) },
      responses: { 204: { description: "Deleted" }, ...guardedResponses },
    }),
    async (c) => {
      await deleteMemory(c.var.mindContext, c.req.valid("param").id);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "post", path: "/{id}/verify", tags, security: bearerSecurity,
      summary: "Mark a memory verified (humans only; a mind key gets 403)",
      request: { params: IdParams, query: z.object({ agent: AgentQuery }) },
      responses: { 200: jsonContent(MemorySchema, "The verified memory"), ...guardedResponses },
    }),
    async (c) => c.json(await verifyMemory(c.var.mindContext, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "get", path: "/{id}/history", tags, security: bearerSecurity,
      summary: "Every change of a memory, oldest first",
      request: { params: IdParams, query: z.object({ agent: AgentQuery }) },
      responses: {
        200: jsonContent(
          z.object({
            history: z.array(
              z.object({
                action: z.string(),
                actor: z.string(),
                old_content: z.string().nullable(),
                new_content: z.string().nullable(),
                changes: z
                  .record(z.string(), z.tuple([z.unknown(), z.unknown()]))
                  .nullable()
                  .openapi({ description: "The other fields the change touched (priority, tags, expires_at, confidence, source, verified), each [before, after]; null: none recorded" }),
                at: z.string(),
              }),
            ),
          }),
          "History",
        ),
        ...guardedResponses,
      },
    }),
    async (c) => c.json({ history: await memoryHistoryOf(c.var.mindContext, c.req.valid("param").id) }, 200),
  );
