// Standard Webhooks (standardwebhooks.com): a delivery carries `webhook-id`, `webhook-timestamp`
// (seconds) and `webhook-signature`, a space-separated list of `v1,` + base64 HMAC-SHA256 of
// `id.timestamp.body` under the secret's bytes (base64 after `whsec_`). During a secret's rotation
// both the new and the previous secret sign, and a receiver accepts either.

const PREFIX = "whsec_";
/** Random bytes of a signing secret (Standard Webhooks asks for 24 to 64). */
const SECRET_BYTES = 32;

const encoder = new TextEncoder();
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `${PREFIX}${base64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)))}`;
}

/** The key a secret stands for: the bytes its base64 after `whsec_` encodes. */
function secretBytes(secret: string): Uint8Array {
  const text = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** One signature: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` under the secret. */
export async function signature(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", secretBytes(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${id}.${timestamp}.${body}`));
  return `v1,${base64(new Uint8Array(mac))}`;
}

/** The headers of one delivery, signed with every secret given (the current one first). */
export async function signedHeaders(secrets: string[], id: string, timestamp: number, body: string): Promise<Record<string, string>> {
  const signatures = await Promise.all(secrets.map((secret) => signature(secret, id, timestamp, body)));
  return {
    "content-type": "application/json",
    "user-agent": "edgemind-webhooks/1",
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatures.join(" "),
  };
}
