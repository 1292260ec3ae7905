import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app-env";
import { bearerSecurity } from "../http/router";
import { searchQuery } from "../memory/fields";
import { SEARCH_LIMIT } from "../memory/limits";
import { MAX_CONTEXT_CHARS } from "../memory/rows";
import { CATEGORY_HINTS } from "../notes/document";
import { retrieveNotes } from "../notes/hybrid-search";
import { addNote, deleteNote, listNotes, NOTE_MAX_CHARS, verifyNote } from "../notes/notes";
import { inNamespace } from "../tenancy/mind-context";
import { agentName } from "../tenancy/principal";
import { AgentQuery, countQuery, ErrorSchema, errorResponses, jsonBody, jsonContent, pageQuery } from "./schemas";

export const NoteSchema = z
  .object({
    id: z.string().openapi({ example: "note_01jq…" }),
    mind_id: z.string(),
    agent: z.string(),
    session_id: z.string().nullable(),
    text: z.string(),
    category_hint: z.string().nullable(),
    source: z.enum(["user", "agent"]),
    confidence: z.number(),
    consolidation_id: z.string().nullable().openapi({ description: "Set while a consolidation is folding the note" }),
    created_at: z.string(),
    context: z.string().optional().openapi({ description: "Where the note came from; only with include=context" }),
  })
  .openapi("Note");

const NoteCreate = z.strictObject({
  text: z.string().trim().min(1).max(NOTE_MAX_CHARS).openapi({ description: "One self-contained fact" }),
  session_id: z.string().trim().min(1).max(100).optional(),
  category_hint: z.enum(CATEGORY_HINTS).optional().openapi({ description: "A cold memory section or a memory category" }),
  context: z.string().max(MAX_CONTEXT_CHARS).optional().openapi({
    description: "Where it came from (surrounding dialogue, document section, date): searched at a lower weight, never shown as the note",
  }),
  agent: agentName.optional(),
});

const guarded = { 400: errorResponses[400], 401: errorResponses[401], 403: errorResponses[403], 404: errorResponses[404] };
const tags = ["notes"];

const NoteParams = z.object({ id: z.string().max(100) });

export const noteRoutes = createRouter();

noteRoutes
  .openapi(
    createRoute({
      method: "post", path: "/", tags, security: bearerSecurity,
      summary: "Save a note: one fact, appended, folded into cold memory by the hourly consolidation",
      request: { query: z.object({ agent: AgentQuery }), body: jsonBody(NoteCreate) },
      responses: { 201: jsonContent(NoteSchema, "The note"), ...guarded },
    }),
    async (c) => {
      const { agent, ...input } = c.req.valid("json");
      return c.json(await addNote(inNamespace(c.var.mindContext, agent), input), 201);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/", tags, security: bearerSecurity,
      summary: "Notes waiting for consolidation, oldest first",
      request: { query: z.object({ agent: AgentQuery, ...pageQuery }) },
      responses: {
        200: jsonContent(z.object({ notes: z.array(NoteSchema), total: z.number(), limit: z.number(), offset: z.number() }), "A page"),
        ...guarded,
      },
    }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      return c.json({ ...(await listNotes(c.var.mindContext, { limit, offset })), limit, offset }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/search", tags, security: bearerSecurity,
      summary: "Search waiting notes: full-text (Russian and English, stemmed), fused with recall by meaning where the deployment has it",
      request: {
        query: z.object({
          q: searchQuery,
          limit: countQuery(SEARCH_LIMIT),
          include: z.enum(["context"]).optional().openapi({ description: "context: return each note's context" }),
          agent: AgentQuery,
        }),
      },
      responses: {
        200: jsonContent(
          z.object({
            results: z.array(NoteSchema.extend({ score: z.number() })),
            retrieval: z.enum(["hybrid", "full_text"]).describe("full_text: full-text search alone; hybrid: fused with recall by meaning"),
          }),
          "Best first",
        ),
        ...guarded,
      },
    }),
    async (c) => {
      const { include, ...query } = c.req.valid("query");
      const { hits, retrieval } = await retrieveNotes(c.var.mindContext, { ...query, withContext: include === "context" });
      return c.json({ results: hits.map(({ note, score }) => ({ ...note, score })), retrieval }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post", path: "/{id}/verify", tags, security: bearerSecurity,
      summary: "A person confirms a note: it becomes their own word (source user, confidence 1.0); a key gets 403",
      request: { params: NoteParams, query: z.object({ agent: AgentQuery }) },
      responses: { 200: jsonContent(NoteSchema, "The confirmed note"), ...guarded },
    }),
    async (c) => c.json(await verifyNote(c.var.mindContext, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "delete", path: "/{id}", tags, security: bearerSecurity,
      summary: "Delete a waiting note (409 while a consolidation is folding it)",
      request: { params: NoteParams, query: z.object({ agent: AgentQuery }) },
      responses: { 200: jsonContent(NoteSchema, "The deleted note"), ...guarded, 409: { description: "A consolidation is folding the note", content: { "application/json": { schema: ErrorSchema } } } },
    }),
    async (c) => c.json(await deleteNote(c.var.mindContext, c.req.valid("param").id), 200),
  );
