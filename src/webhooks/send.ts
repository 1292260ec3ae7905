import type { WebhookRow } from "../db/schema";
import type { InShard } from "../deps";
import { eventBody, type MindEvent } from "../events/types";
import { type OutboundPolicy, refusedUrl, type Sent, sendBounded } from "../http/outbound";
import { openSecret } from "./secret-box";
import { outboundPolicyOf } from "./settings";
import { signedHeaders } from "./signing";

// One attempt to deliver one event to one webhook: its URL checked again (a name may now point
// elsewhere), the body signed with its secret (and the previous one during a rotation's grace),
// one bounded request that follows no redirect.

/** How long a receiver has to answer one attempt. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Bytes of a receiver's answer read at most; the first of them go to the log when it failed. */
const ANSWER_BYTES = 1_024;
/** Characters of what went wrong the log keeps. */
const ERROR_CHARS = 300;

/** Where a webhook's events go now: its URL and secrets, or why they cannot go. */
export type Target = { url: string; secrets: string[] } | { refused: string };

/** The webhook's URL as checked now (under `policy`, by default the settings'), with its secrets opened; or why nothing can be sent to it. */
export async function targetOf(deps: Pick<InShard, "webhooks" | "clock">, webhook: WebhookRow, policy?: OutboundPolicy): Promise<Target> {
  const refused = await refusedUrl(webhook.url, policy ?? outboundPolicyOf(deps.webhooks, deps.clock));
  if (refused !== null) return { refused: `refused: ${refused}` };
  const key = deps.webhooks.encryptionKey;
  if (key === null) return { refused: "WEBHOOK_ENCRYPTION_KEY is not set: the signing secret cannot be read" };
  const sealed = [webhook.secret, ...(webhook.previousSecret && (webhook.previousUntil ?? "") > deps.clock.now().toISOString() ? [webhook.previousSecret] : [])];
  try {
    return { url: webhook.url, secrets: await Promise.all(sealed.map((s) => openSecret(key, webhook.id, s))) };
  } catch {
    return { refused: "the signing secret cannot be read with WEBHOOK_ENCRYPTION_KEY (was it changed?): rotate the secret" };
  }
}

/** Sends the event to the target, signed; a refused target is a failed attempt that sent nothing. */
export async function sendEvent(deps: Pick<InShard, "clock">, target: Target, event: MindEvent): Promise<Sent> {
  if ("refused" in target) return { status: null, ok: false, error: target.refused.slice(0, ERROR_CHARS) };
  const body = eventBody(event);
  const timestamp = Math.floor(deps.clock.now().getTime() / 1000);
  const headers = await signedHeaders(target.secrets, event.id, timestamp, body);
  const sent = await sendBounded(target.url, { method: "POST", headers, body }, { timeoutMs: ATTEMPT_TIMEOUT_MS, maxBodyBytes: ANSWER_BYTES });
  return { ...sent, error: sent.error?.slice(0, ERROR_CHARS) ?? null };
}
