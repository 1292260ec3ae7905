import { withDeadline } from "./deadline";
import { type Resolver, resolveHost } from "./dns";
import { addressKind } from "./public-address";

// Requests to URLs a user gave (webhooks): https to public addresses only (a name is resolved
// and every address it has must be public), loopback over http or https only where a setting
// allows it (development), never a redirect followed, each request bounded in time, and of the
// answer only its first bytes read.

export interface OutboundPolicy {
  /** Loopback receivers (127.0.0.1, [::1], localhost) are allowed, over http too: development only. */
  allowLoopback: boolean;
  resolver: Resolver;
}

/** How one request is bounded. */
export interface SendBounds {
  timeoutMs: number;
  /** Bytes of the answer read at most; the rest is dropped unread. */
  maxBodyBytes: number;
}

/** What came of one request: the status (null when none came), whether it was a 2xx, and what went wrong. */
export interface Sent {
  status: number | null;
  ok: boolean;
  error: string | null;
}

const isLoopbackName = (host: string) => host === "localhost" || host.endsWith(".localhost");

/**
 * Why requests may not go to `url`, or null when they may. Checked when a webhook is created and
 * again before each delivery (a name may come to point elsewhere).
 */
export async function refusedUrl(url: string, policy: OutboundPolicy): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "not a URL";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "only https URLs are allowed";
  if (parsed.username !== "" || parsed.password !== "") return "a URL may not carry a user name or password";
  const host = parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const literal = addressKind(host);
  const kind = literal ?? (isLoopbackName(host) ? "loopback" : null);
  if (kind === "loopback") return policy.allowLoopback ? null : `${host} is a loopback address (allowed only where WEBHOOK_ALLOW_LOOPBACK is set, for development)`;
  if (parsed.protocol !== "https:") return "only https URLs are allowed (http only to loopback, for development)";
  if (kind === "private") return `${host} is not a public address`;
  if (kind === "public") return null;
  return refusedName(host, policy);
}

/** Why a hostname may not be sent to: it does not resolve, or one of its addresses is not public. */
async function refusedName(host: string, policy: OutboundPolicy): Promise<string | null> {
  let addresses: string[];
  try {
    addresses = await resolveHost(policy.resolver, host);
  } catch (error) {
    return `${host} could not be resolved (${error instanceof Error ? error.message : "DNS failed"})`;
  }
  if (addresses.length === 0) return `${host} does not resolve`;
  const kinds = addresses.map((address) => [address, addressKind(address) ?? "private"] as const);
  if (policy.allowLoopback && kinds.every(([, k]) => k === "loopback")) return null;
  const hidden = kinds.find(([, k]) => k !== "public");
  return hidden ? `${host} resolves to ${hidden[0]}, which is not a public address` : null;
}

/**
 * Sends one request, following no redirect (a 3xx is a failure), within `bounds` (the time bound
 * covers the answer's first bytes too); never throws.
 */
export function sendBounded(url: string, init: { method: string; headers: Record<string, string>; body: string }, bounds: SendBounds): Promise<Sent> {
  return withDeadline(bounds.timeoutMs, async (signal) => {
    let response: Response;
    try {
      response = await fetch(url, { ...init, redirect: "manual", signal });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      return { status: null, ok: false, error: timedOut ? `no answer within ${bounds.timeoutMs / 1000} s` : `request failed: ${errorText(error)}` };
    }
    return outcomeOf(response, await readStart(response, bounds.maxBodyBytes).catch(() => ""));
  });
}

/** What an answer means for the attempt, given the first bytes of its body. */
function outcomeOf(response: Response, start: string): Sent {
  if (response.status >= 300 && response.status < 400) {
    return { status: response.status, ok: false, error: `redirected to ${response.headers.get("location") ?? "(no location)"}: redirects are not followed` };
  }
  if (response.ok) return { status: response.status, ok: true, error: null };
  return { status: response.status, ok: false, error: `answered ${response.status}${start ? `: ${start}` : ""}` };
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 200);

/** The first `max` bytes of the answer as text; the rest is cancelled unread. */
async function readStart(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let read = 0;
  try {
    while (read < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      read += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(Math.min(read, max));
  let at = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, Math.max(0, bytes.length - at));
    bytes.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(bytes);
}
