import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../app-env";
import { assembleContext, MAX_CONTEXT_TOKENS, MIN_CONTEXT_TOKENS } from "../context/assemble";
import { assembledContextRecord } from "../context/fields";
import { invalid } from "../errors";
import { bearerSecurity } from "../http/router";
import { asOfQuery, contextQuery, searchQuery } from "../memory/fields";
import { SEARCH_LIMIT } from "../memory/limits";
import { deleteChat, listChats } from "../sessions/chats";
import {
  appendResultRecord,
  chatSummaryRecord,
  messageRecord,
  sessionExtractionRecord,
  sessionRecord,
  sessionStateRecord,
} from "../sessions/fields";
import { appendMessage, completeSession, extractSessionNow } from "../sessions/messages";
import { MAX_MESSAGE_CHARS, ROLES } from "../sessions/rows";
import {
  activateSession,
  deleteSession,
  getSessionWithState,
  listSessions,
  openApiSession,
} from "../sessions/sessions";
import { llmWindow, searchMessages, uiHistory } from "../sessions/windows";
import { countQuery, errorResponses, jsonBody, jsonContent, pageQuery } from "./schemas";

const SessionSchema = sessionRecord.openapi("Session");
const SessionStateSchema = sessionStateRecord.openapi("SessionState");
const ExtractionSchema = sessionExtractionRecord.openapi("Extraction");
const MessageSchema = messageRecord.openapi("Message");
const ContextSchema = assembledContextRecord.openapi("Context");

const name = (max: number) => z.string().trim().min(1).max(max);
// A chat's name is unique within its namespace; control characters are refused.
const chatName = name(200).regex(/^\P{Cc}*$/u, "chat: no control characters");

const SessionOpen = z.strictObject({
  chat: chatName.optional().openapi({ description: "The API client's channel name in the namespace (default: \"default\")" }),
  repo_path: name(500).nullable().optional(),
  task_name: name(200),
});

const MessageAppend = z.strictObject({
  role: z
    .enum([...ROLES, "model"])
    .transform((role) => (role === "model" ? "assistant" : role))
    .openapi({ description: "`model` is stored as `assistant`" }),
  content: z.string().min(1).max(MAX_MESSAGE_CHARS),
  ephemeral: z.boolean().optional().openapi({ description: "Tool output kept out of the LLM window and cleared by TTL" }),
  tool: name(100).nullable().optional().openapi({ description: "The tool this output or message is about" }),
  transaction_completed: z.boolean().optional().openapi({ description: "This message closes a transaction: ask \"Done?\"" }),
});

const IdParams = z.object({ id: z.string().max(100) });
const guarded = { 400: errorResponses[400], 401: errorResponses[401], 403: errorResponses[403], 404: errorResponses[404] };
const tags = ["sessions"];

export const sessionRoutes = createRouter();

sessionRoutes
  .openapi(
    createRoute({
      method: "post", path: "/", tags, security: bearerSecurity,
      summary: "Open a task in a chat (returns the existing one for the same chat, repo_path and task_name); it becomes active",
      request: { body: jsonBody(SessionOpen) },
      responses: { 201: jsonContent(SessionSchema, "Created"), 200: jsonContent(SessionSchema, "Already existed"), ...guarded },
    }),
    async (c) => {
      const { session, created } = await openApiSession(c.var.mindContext, c.req.valid("json"));
      return created ? c.json(session, 201) : c.json(session, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/", tags, security: bearerSecurity,
      summary: "List sessions (of one chat, by id or API chat name), most recent first, with message counts",
      request: { query: z.object({ chat: chatName.optional(), chat_id: z.string().max(100).optional(), ...pageQuery }) },
      responses: { 200: jsonContent(z.object({ sessions: z.array(SessionSchema) }), "Sessions"), ...guarded },
    }),
    async (c) => {
      const { chat, chat_id, limit, offset } = c.req.valid("query");
      return c.json({ sessions: await listSessions(c.var.mindContext, { chat, chatId: chat_id, limit, offset }) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/search", tags, security: bearerSecurity,
      summary: "Full-text search over non-ephemeral messages (Russian and English, stemmed), best first",
      request: {
        query: z.object({
          q: searchQuery,
          session_id: z.string().max(100).optional(),
          limit: countQuery(SEARCH_LIMIT),
        }),
      },
      responses: {
        200: jsonContent(z.object({ results: z.array(MessageSchema.extend({ score: z.number() })) }), "Best first"),
        ...guarded,
      },
    }),
    async (c) => {
      const { q, session_id, limit } = c.req.valid("query");
      const hits = await searchMessages(c.var.mindContext, { q, sessionId: session_id, limit });
      return c.json({ results: hits.map(({ message, score }) => ({ ...message, score })) }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/{id}", tags, security: bearerSecurity,
      summary: "A session with its counters (TTL, extraction, completion)",
      request: { params: IdParams },
      responses: { 200: jsonContent(SessionSchema.extend({ state: SessionStateSchema }), "The session"), ...guarded },
    }),
    async (c) => c.json(await getSessionWithState(c.var.mindContext, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "post", path: "/{id}/activate", tags, security: bearerSecurity,
      summary: "Make the session its chat's active one",
      request: { params: IdParams },
      responses: { 200: jsonContent(SessionSchema, "The session, now active"), ...guarded },
    }),
    async (c) => c.json(await activateSession(c.var.mindContext, c.req.valid("param").id), 200),
  )
  .openapi(
    createRoute({
      method: "delete", path: "/{id}", tags, security: bearerSecurity,
      summary: "Erase a session, its messages and its stored state",
      request: { params: IdParams },
      responses: { 200: jsonContent(z.object({ deleted: z.record(z.string(), z.number()) }), "Rows deleted, per table"), ...guarded },
    }),
    async (c) => c.json({ deleted: await deleteSession(c.var.mindContext, c.req.valid("param").id) }, 200),
  )
  .openapi(
    createRoute({
      method: "post", path: "/{id}/messages", tags, security: bearerSecurity,
      summary: "Append a message; trims to history_cap and clears ephemeral output whose TTL ran out",
      request: { params: IdParams, body: jsonBody(MessageAppend) },
      responses: {
        201: jsonContent(appendResultRecord.extend({ message: MessageSchema, state: SessionStateSchema }), "Appended"),
        ...guarded,
      },
    }),
    async (c) => c.json(await appendMessage(c.var.mindContext, c.req.valid("param").id, c.req.valid("json")), 201),
  )
  .openapi(
    createRoute({
      method: "get", path: "/{id}/messages", tags, security: bearerSecurity,
      summary: "llm: the last llm_window non-ephemeral messages, oldest first. ui: everything, paginated with `after`",
      request: {
        params: IdParams,
        query: z.object({
          channel: z.enum(["llm", "ui"]).default("llm"),
          after: z.coerce.number().int().min(0).optional(),
          limit: z.coerce.number().int().min(1).max(200).optional(),
        }),
      },
      responses: {
        200: jsonContent(
          z.object({
            channel: z.enum(["llm", "ui"]),
            messages: z.array(MessageSchema),
            total: z.number().optional(),
            next_after: z.number().int().nullable().optional(),
          }),
          "Oldest first",
        ),
        ...guarded,
      },
    }),
    async (c) => {
      const id = c.req.valid("param").id;
      const { channel, after, limit } = c.req.valid("query");
      if (channel === "llm") {
        if (after !== undefined || limit !== undefined) throw invalid("after and limit go with channel=ui; the LLM window is the mind's llm_window");
        return c.json({ channel, messages: await llmWindow(c.var.mindContext, id) }, 200);
      }
      const page = await uiHistory(c.var.mindContext, id, { after: after ?? 0, limit: limit ?? 50 });
      return c.json({ channel, ...page }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "get", path: "/{id}/context", tags, security: bearerSecurity,
      summary: "The context a model gets for a turn: LLM window, search hits for q, recall and cold memory, within max_tokens; memories valid now, or as_of",
      request: {
        params: IdParams,
        query: z.object({
          q: contextQuery.optional().openapi({ description: "The current message: memory related to it is searched" }),
          max_tokens: z.coerce.number().int().min(MIN_CONTEXT_TOKENS).max(MAX_CONTEXT_TOKENS).optional(),
          as_of: asOfQuery.optional(),
          include: z.enum(["superseded"]).optional().openapi({ description: "superseded: memories a later statement replaced too, each marked with the day it was" }),
        }),
      },
      responses: { 200: jsonContent(ContextSchema, "Parts with their token cost, and the prompt as sent"), ...guarded },
    }),
    async (c) => {
      const { q, max_tokens, as_of, include } = c.req.valid("query");
      const request = { session_id: c.req.valid("param").id, q, max_tokens, as_of, include_superseded: include === "superseded" };
      const context = await assembleContext(c.var.mindContext, request);
      return c.json(context, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post", path: "/{id}/complete", tags, security: bearerSecurity,
      summary: "Answer \"Done?\": confirmed deletes the session's ephemeral messages and clears its state; false keeps them",
      request: { params: IdParams, body: jsonBody(z.strictObject({ confirmed: z.boolean() })) },
      responses: {
        200: jsonContent(z.object({ confirmed: z.boolean(), cleared: z.number(), state: SessionStateSchema }), "Answered"),
        ...guarded,
      },
    }),
    async (c) =>
      c.json(await completeSession(c.var.mindContext, c.req.valid("param").id, c.req.valid("json").confirmed), 200),
  )
  .openapi(
    createRoute({
      method: "post", path: "/{id}/extract", tags, security: bearerSecurity,
      summary: "Extract notes from the session's dialogue after its cursor now; with no model configured nothing moves",
      request: { params: IdParams },
      responses: {
        200: jsonContent(z.object({ extraction: ExtractionSchema, state: SessionStateSchema }), "What the extraction did"),
        ...guarded,
      },
    }),
    async (c) => c.json(await extractSessionNow(c.var.mindContext, c.req.valid("param").id), 200),
  );

/** A mind's chats: each holds its sessions. */
export const chatRoutes = createRouter();

chatRoutes
  .openapi(
    createRoute({
      method: "get", path: "/", tags, security: bearerSecurity, summary: "The mind's chats with their session counts",
      request: { query: z.object(pageQuery) },
      responses: {
        200: jsonContent(
          z.object({ chats: z.array(chatSummaryRecord) }),
          "Chats, oldest first",
        ),
        ...guarded,
      },
    }),
    async (c) => c.json({ chats: await listChats(c.var.mindContext, c.req.valid("query")) }, 200),
  )
  .openapi(
    createRoute({
      method: "delete", path: "/{id}", tags, security: bearerSecurity,
      summary: "Erase a chat with all its sessions, their messages and their stored state",
      request: { params: IdParams },
      responses: { 200: jsonContent(z.object({ deleted: z.record(z.string(), z.number()) }), "Rows deleted, per table"), ...guarded },
    }),
    async (c) => c.json({ deleted: await deleteChat(c.var.mindContext, c.req.valid("param").id) }, 200),
  );
