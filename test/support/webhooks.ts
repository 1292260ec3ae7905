import { afterAll, vi } from "vitest";
import { everyDatabase } from "./shards";

// A stand-in for the internet a webhook's delivery meets: the DNS-over-HTTPS resolver the tests
// configure (WEBHOOK_DNS_URL, vitest.config.ts) answers from a table, and receivers registered
// here record each request and answer as scripted. Every other fetch passes through.

export const DNS_URL = "https://dns.test/dns-query";

/** A public address for receivers' names (any address the checks take for public). */
export const PUBLIC_ADDRESS = "93.184.216.34";

export interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
  // The event as sent; each assertion names the fields it expects.
  event: any;
}

/** How a receiver answers one request: a status, no answer at all (a timeout), or a redirect. */
export type Answer = number | "timeout" | { redirect: string; status?: number };

export interface Receivers {
  /** Every request a receiver got, in order. */
  received: Received[];
  /** What one receiver got. */
  at(url: string): Received[];
  /** Registers a receiver at `url`: the next requests get `answers` in turn, then `then` (default 200). */
  receiver(url: string, options?: { answers?: Answer[]; then?: Answer }): void;
  /** Names the resolver knows, with their addresses (IPv4 or IPv6). */
  resolve(name: string, ...addresses: string[]): void;
  /** Lookups the resolver answered. */
  lookups: string[];
}

/** Installs the stand-in for the rest of the file. */
export function standInReceivers(): Receivers {
  const received: Received[] = [];
  const lookups: string[] = [];
  const names = new Map<string, string[]>();
  const scripts = new Map<string, { answers: Answer[]; then: Answer }>();
  const original = globalThis.fetch;
  switchOffWebhooksAfterTheFile();
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const request = new Request(input, init);
    if (request.url.startsWith(DNS_URL)) return dnsAnswer(new URL(request.url), names, lookups);
    const script = scripts.get(request.url);
    if (!script) return original(input, init);
    const body = await request.text();
    received.push({ url: request.url, headers: Object.fromEntries(request.headers), body, event: JSON.parse(body) });
    return answerWith(script.answers.shift() ?? script.then, request.signal);
  });
  return {
    received,
    lookups,
    at: (url) => received.filter((r) => r.url === url),
    receiver: (url, options = {}) => scripts.set(url, { answers: [...(options.answers ?? [])], then: options.then ?? 200 }),
    resolve: (name, ...addresses) => names.set(name, addresses),
  };
}

// The stand-in goes with its file (test/setup.ts restores every mock), while deliveries still due
// (a retry, a late wake) would run on in the shared runtime and meet the real network: every
// webhook is switched off first, so nothing is left to deliver when the file ends.
function switchOffWebhooksAfterTheFile(): void {
  afterAll(async () => {
    for (const db of everyDatabase()) await db.prepare("update webhooks set enabled = 0").run();
  });
}

function dnsAnswer(url: URL, names: Map<string, string[]>, lookups: string[]): Response {
  const name = url.searchParams.get("name") ?? "";
  const type = Number(url.searchParams.get("type"));
  lookups.push(`${name} ${type}`);
  const addresses = names.get(name);
  if (!addresses) return Response.json({ Status: 3 });
  const records = addresses.filter((a) => (type === 28) === a.includes(":")).map((data) => ({ name, type, TTL: 60, data }));
  return Response.json({ Status: 0, Answer: records });
}

async function answerWith(answer: Answer, signal: AbortSignal): Promise<Response> {
  if (answer === "timeout") {
    // The receiver never answers: the request ends when its own timeout fires (10 s), here at once.
    throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
  }
  if (typeof answer === "object") return new Response(null, { status: answer.status ?? 302, headers: { location: answer.redirect } });
  signal.throwIfAborted();
  return new Response(answer >= 400 ? `receiver error ${answer} ${"x".repeat(5000)}` : "ok", { status: answer });
}

const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

/**
 * Verifies a delivery as Standard Webhooks says a receiver does (written from the specification,
 * not from edgemind's code): the HMAC-SHA256 of `id.timestamp.body` under the secret's bytes
 * (base64 after `whsec_`), base64, must be one of the `v1,` signatures.
 */
export async function verifiesWith(secret: string, delivery: Pick<Received, "headers" | "body">): Promise<boolean> {
  const id = delivery.headers["webhook-id"];
  const timestamp = delivery.headers["webhook-timestamp"];
  const signatures = (delivery.headers["webhook-signature"] ?? "").split(" ");
  if (!id || !timestamp || !/^\d+$/.test(timestamp)) return false;
  const key = await crypto.subtle.importKey("raw", fromBase64(secret.replace(/^whsec_/, "")), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${delivery.body}`)));
  const expected = btoa(String.fromCharCode(...mac));
  return signatures.some((s) => s === `v1,${expected}`);
}
