import { type Api, dataOf } from "./call.js";
import { EdgemindError } from "./errors.js";
import type { WebhookInput } from "./types.js";

/** A mind's webhooks (a human's token: they are the owner's), each of the mind given or the client's. */
export function webhooksResource(api: Api, defaultMind: string | undefined) {
  const mindOf = (id: string | undefined) => {
    const found = id ?? defaultMind;
    if (!found) throw new EdgemindError(400, "invalid_request", "name the mind: pass its id or give the client a mindId");
    return found;
  };
  const one = (webhookId: string, mindId?: string) => ({ params: { path: { id: mindOf(mindId), webhookId } } });
  return {
    /** Subscribes a URL (https, a public address) to the mind's events; the answer's `secret` is shown this once. */
    create: (input: WebhookInput, mindId?: string) => dataOf(api.POST("/minds/{id}/webhooks", { params: { path: { id: mindOf(mindId) } }, body: input })),
    /** The mind's webhooks, oldest first. */
    list: async (mindId?: string) => (await dataOf(api.GET("/minds/{id}/webhooks", { params: { path: { id: mindOf(mindId) } } }))).webhooks,
    get: (webhookId: string, mindId?: string) => dataOf(api.GET("/minds/{id}/webhooks/{webhookId}", one(webhookId, mindId))),
    /** Deletes the webhook and its delivery log. */
    async delete(webhookId: string, mindId?: string): Promise<void> {
      await dataOf(api.DELETE("/minds/{id}/webhooks/{webhookId}", one(webhookId, mindId)));
    },
    /** A new signing secret (shown this once); the old one still signs beside it for `graceHours` (default 24). */
    rotateSecret: (webhookId: string, options: { graceHours?: number } = {}, mindId?: string) =>
      dataOf(
        api.POST("/minds/{id}/webhooks/{webhookId}/rotate", {
          ...one(webhookId, mindId),
          body: options.graceHours === undefined ? {} : { grace_hours: options.graceHours },
        }),
      ),
    /** Turns on a webhook delivery disabled after a day of failures: it goes on from the event it stopped at. */
    enable: (webhookId: string, mindId?: string) => dataOf(api.POST("/minds/{id}/webhooks/{webhookId}/enable", one(webhookId, mindId))),
    /** The delivery log: the last 100 attempts, newest first. */
    attempts: async (webhookId: string, mindId?: string) => (await dataOf(api.GET("/minds/{id}/webhooks/{webhookId}/attempts", one(webhookId, mindId)))).attempts,
    /** Sends one event to the webhook again, now. */
    replay: (webhookId: string, eventId: string, mindId?: string) =>
      dataOf(api.POST("/minds/{id}/webhooks/{webhookId}/replay", { ...one(webhookId, mindId), body: { event_id: eventId } })),
  };
}

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/**
 * Whether a delivery is signed with `secret` (Standard Webhooks: `v1,` + base64 HMAC-SHA256 of
 * `id.timestamp.body`) and was sent within `toleranceSeconds` (default 300) of now. `headers`:
 * the request's headers; `body`: its body exactly as received.
 */
export async function verifyWebhook(
  secret: string,
  headers: Headers | Record<string, string | undefined>,
  body: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): Promise<boolean> {
  const read = (name: string) => (headers instanceof Headers ? headers.get(name) : (headers[name] ?? null));
  const id = read("webhook-id");
  const timestamp = read("webhook-timestamp");
  const signatures = (read("webhook-signature") ?? "").split(" ");
  if (!id || !timestamp || !/^\d+$/.test(timestamp)) return false;
  const now = (options.now ?? new Date()).getTime() / 1000;
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) return false;
  const key = await crypto.subtle.importKey("raw", fromBase64(secret.replace(/^whsec_/, "")), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  const signed = new TextEncoder().encode(`${id}.${timestamp}.${body}`);
  for (const signature of signatures) {
    if (!signature.startsWith("v1,")) continue;
    // crypto.subtle.verify compares in constant time.
    if (await crypto.subtle.verify("HMAC", key, fromBase64(signature.slice(3)), signed)) return true;
  }
  return false;
}
