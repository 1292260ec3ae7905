import type { Clock } from "../clock";
import { notConfigured } from "../errors";
import { DEFAULT_DNS_URL } from "../http/dns";
import type { OutboundPolicy } from "../http/outbound";

// Webhooks' own settings, read from the Worker's Env (src/worker-env.d.ts) once per entry point.

/** Characters WEBHOOK_ENCRYPTION_KEY has at least. */
const MIN_KEY_LENGTH = 32;

export interface WebhookSettings {
  /** WEBHOOK_ENCRYPTION_KEY: the Worker secret signing secrets are stored encrypted under; null when unset or too short. */
  encryptionKey: string | null;
  /** WEBHOOK_ALLOW_LOOPBACK: receivers on this machine (http://127.0.0.1:…) are allowed, for development. */
  allowLoopback: boolean;
  /** WEBHOOK_DNS_URL: the DNS-over-HTTPS resolver a receiver's name is resolved with. */
  dnsUrl: string;
}

/** The settings in the Worker's Env. */
export function readWebhookSettings(env: Pick<Env, "WEBHOOK_ENCRYPTION_KEY" | "WEBHOOK_ALLOW_LOOPBACK" | "WEBHOOK_DNS_URL">): WebhookSettings {
  const key = env.WEBHOOK_ENCRYPTION_KEY ?? "";
  return {
    encryptionKey: key.length >= MIN_KEY_LENGTH ? key : null,
    allowLoopback: ["1", "true"].includes((env.WEBHOOK_ALLOW_LOOPBACK ?? "").toLowerCase()),
    dnsUrl: env.WEBHOOK_DNS_URL || DEFAULT_DNS_URL,
  };
}

/** The key signing secrets are sealed under; 503 not_configured naming the setting when there is none. */
export function encryptionKeyOf(settings: WebhookSettings): string {
  if (settings.encryptionKey === null) {
    throw notConfigured("WEBHOOK_ENCRYPTION_KEY", `WEBHOOK_ENCRYPTION_KEY must be set to at least ${MIN_KEY_LENGTH} characters: webhooks' signing secrets are stored encrypted under it`);
  }
  return settings.encryptionKey;
}

/** Where a webhook's requests may go, as the settings say; `onLookup` is told of each question to the resolver. */
export const outboundPolicyOf = (settings: WebhookSettings, clock: Clock, onLookup?: () => void): OutboundPolicy => ({
  allowLoopback: settings.allowLoopback,
  resolver: { url: settings.dnsUrl, now: () => clock.now().getTime(), ...(onLookup && { onLookup }) },
});
