import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type AppEnv, createRouter } from "../app-env";
import { EVENT_TYPES } from "../events/types";
import { bearerSecurity } from "../http/router";
import { bindMind, personalScope } from "../tenancy/mind-context";
import { getMind } from "../tenancy/minds";
import { replayEvent } from "../webhooks/replay";
import {
  ATTEMPTS_KEPT,
  createWebhook,
  DEFAULT_GRACE_HOURS,
  deleteWebhook,
  enableWebhook,
  getWebhook,
  listAttempts,
  listWebhooks,
  MAX_GRACE_HOURS,
  MAX_WEBHOOKS,
  rotateSecret,
  URL_MAX_CHARS,
} from "../webhooks/subscriptions";
import { ErrorSchema, guardedResponses, jsonBody, jsonContent } from "./schemas";

// A person's token manages a mind's webhooks (POST/GET/DELETE /minds/:id/webhooks …); the events
// and their delivery are described in src/webhooks/deliver.ts and README's "Webhooks".

const tags = ["webhooks"];
const EventTypeSchema = z.enum(EVENT_TYPES);

const WebhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    types: z.array(EventTypeSchema),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().openapi({ description: "Why delivery disabled it after a day of failed attempts; POST …/enable turns it on again" }),
    disabled_at: z.string().nullable(),
    failures: z.number().openapi({ description: "Failed attempts in a row at the event it is on" }),
    failing_since: z.string().nullable(),
    next_attempt_at: z.string().nullable().openapi({ description: "When the failing event is tried again" }),
    pending: z.number().openapi({ description: "Events waiting for it" }),
    previous_secret_until: z.string().nullable().openapi({ description: "While a rotated-out secret still signs beside the new one" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Webhook");

const WithSecret = WebhookSchema.extend({
  secret: z.string().openapi({ description: "The signing secret (whsec_…), shown this once: verify deliveries with it (Standard Webhooks)" }),
}).openapi("WebhookWithSecret");

const AttemptSchema = z
  .object({
    id: z.number(),
    event_id: z.string(),
    sequence: z.number(),
    type: z.string(),
    status: z.number().nullable().openapi({ description: "The receiver's HTTP status; null when none came (refused, timed out, unreachable)" }),
    ok: z.boolean(),
    error: z.string().nullable().openapi({ description: "The first bytes of what went wrong" }),
    duration_ms: z.number(),
    at: z.string(),
  })
  .openapi("WebhookAttempt");

const WebhookCreate = z.strictObject({
  url: z.string().trim().min(1).max(URL_MAX_CHARS).openapi({ description: "https, to a public address (a name must resolve only to public addresses)" }),
  types: z.array(EventTypeSchema).max(EVENT_TYPES.length).optional().openapi({ description: "The event types it receives (default: all)" }),
});
const RotateBody = z.strictObject({
  grace_hours: z.number().int().min(0).max(MAX_GRACE_HOURS).optional().openapi({ description: `How long the old secret still signs (default ${DEFAULT_GRACE_HOURS})` }),
});
const ReplayBody = z.strictObject({ event_id: z.string().min(1).max(100) });

const MindParams = z.object({ id: z.string().max(100) });
const WebhookParams = z.object({ id: z.string().max(100), webhookId: z.string().max(100) });

/** The context of the person's mind the path names. */
async function webhookContext(c: Context<AppEnv>, mindId: string) {
  const mind = await getMind(c.var.deps, c.var.accountId, mindId);
  return bindMind(c.var.deps, mind, personalScope({ kind: "human", accountId: c.var.accountId }, mind.id));
}

export const webhookRoutes = createRouter();

webhookRoutes
  .openapi(
    createRoute({
      method: "post", path: "/{id}/webhooks", tags, security: bearerSecurity,
      summary: `Subscribe a URL to the mind's events (at most ${MAX_WEBHOOKS} webhooks a mind); the signing secret is shown once`,
      request: { params: MindParams, body: jsonBody(WebhookCreate) },
      responses: {
        201: jsonContent(WithSecret, "The webhook, with its signing secret"),
        ...guardedResponses,
        409: { description: `The mind has ${MAX_WEBHOOKS} webhooks already`, content: { "application/json": { schema: ErrorSchema } } },
      },
    }),
    async (c) => c.json(await createWebhook(await webhookContext(c, c.req.valid("param").id), c.req.valid("json")), 201),
  )
  .openapi(
    createRoute({
      method: "get", path: "/{id}/webhooks", tags, security: bearerSecurity, summary: "The mind's webhooks",
      request: { params: MindParams },
      responses: { 200: jsonContent(z.object({ webhooks: z.array(WebhookSchema) }), "The webhooks, oldest first"), ...guardedResponses },
    }),
    async (c) => c.json({ webhooks: await listWebhooks(await webhookContext(c, c.req.valid("param").id)) }, 200),
  )
  .openapi(
    createRoute({
      method: "get", path: "/{id}/webhooks/{webhookId}", tags, security: bearerSecurity, summary: "One webhook",
      request: { params: WebhookParams },
      responses: { 200: jsonContent(WebhookSchema, "The webhook"), ...guardedResponses },
    }),
    async (c) => c.json(await getWebhook(await webhookContext(c, c.req.valid("param").id), c.req.valid("param").webhookId), 200),
  )
  .openapi(
    createRoute({
      method: "delete", path: "/{id}/webhooks/{webhookId}", tags, security: bearerSecurity, summary: "Delete a webhook and its delivery log",
      request: { params: WebhookParams },
      responses: { 204: { description: "Deleted" }, ...guardedResponses },
    }),
    async (c) => {
      await deleteWebhook(await webhookContext(c, c.req.valid("param").id), c.req.valid("param").webhookId);
      return c.body(null, 204);
    },
  )
  .openapi(
    createRoute({
      method: "post", path: "/{id}/webhooks/{webhookId}/rotate", tags, security: bearerSecurity,
      summary: "A new signing secret, shown once; the old one still signs beside it for the grace period",
      request: { params: WebhookParams, body: jsonBody(RotateBody) },
      responses: { 200: jsonContent(WithSecret, "The webhook, with its new signing secret"), ...guardedResponses },
    }),
    async (c) => {
      const { id, webhookId } = c.req.valid("param");
      return c.json(await rotateSecret(await webhookContext(c, id), webhookId, c.req.valid("json").grace_hours ?? DEFAULT_GRACE_HOURS), 200);
    },
  )
  .openapi(
    createRoute({
      method: "post", path: "/{id}/webhooks/{webhookId}/enable", tags, security: bearerSecurity,
      summary: "Turn a disabled webhook on again: delivery starts at the event it stopped at",
      request: { params: WebhookParams },
      responses: { 200: jsonContent(WebhookSchema, "The webhook"), ...guardedResponses },
    }),
    async (c) => c.json(await enableWebhook(await webhookContext(c, c.req.valid("param").id), c.req.valid("param").webhookId), 200),
  )
  .openapi(
    createRoute({
      method: "get", path: "/{id}/webhooks/{webhookId}/attempts", tags, security: bearerSecurity,
      summary: `The delivery log: the webhook's last ${ATTEMPTS_KEPT} attempts, newest first`,
      request: { params: WebhookParams },
      responses: { 200: jsonContent(z.object({ attempts: z.array(AttemptSchema) }), "The attempts"), ...guardedResponses },
    }),
    async (c) => c.json({ attempts: await listAttempts(await webhookContext(c, c.req.valid("param").id), c.req.valid("param").webhookId) }, 200),
  )
  .openapi(
    createRoute({
      method: "post", path: "/{id}/webhooks/{webhookId}/replay", tags, security: bearerSecurity,
      summary: "Send one event to the webhook again, now (one attempt, in the delivery log)",
      request: { params: WebhookParams, body: jsonBody(ReplayBody) },
      responses: { 200: jsonContent(AttemptSchema, "The attempt"), ...guardedResponses },
    }),
    async (c) => {
      const { id, webhookId } = c.req.valid("param");
      return c.json(await replayEvent(await webhookContext(c, id), webhookId, c.req.valid("json").event_id), 200);
    },
  );
