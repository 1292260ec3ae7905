import { Lru } from "../lru";
import { withDeadline } from "./deadline";

// Workers have no DNS API, so a hostname a user gave (a webhook's) is resolved with DNS over
// HTTPS (the JSON form Cloudflare's and Google's resolvers answer) before a request is sent to it,
// to refuse a name that points at a private address. Answers are kept per isolate for their TTL
// (at most MAX_TTL_S, at least MIN_TTL_S), in a bounded cache; a failed lookup is not kept.

/** The resolver asked when no setting names another. */
export const DEFAULT_DNS_URL = "https://cloudflare-dns.com/dns-query";

const MIN_TTL_S = 30;
const MAX_TTL_S = 300;
/** How long one lookup may take. */
const LOOKUP_TIMEOUT_MS = 5_000;
/** The answer read at most: a JSON answer with a few dozen records is a few KB. */
const MAX_ANSWER_BYTES = 64 * 1024;

const A = 1;
const AAAA = 28;

interface Resolved {
  addresses: string[];
  expiresAt: number;
}

const resolved = new Lru<Resolved>({ maxEntries: 2_000, maxBytes: 2 * 1024 * 1024, ttlMs: MAX_TTL_S * 1000 });

/** What a lookup needs: the resolver's URL and the time (ms); `onLookup` is told of each request to it (a subrequest). */
export interface Resolver {
  url: string;
  now(): number;
  onLookup?: () => void;
}

/**
 * The IPv4 and IPv6 addresses `hostname` resolves to (CNAMEs followed by the resolver); none for
 * a name that does not exist. Throws when the resolver cannot be asked or answers an error.
 */
export async function resolveHost(resolver: Resolver, hostname: string): Promise<string[]> {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  const known = resolved.get(name, resolver.now());
  if (known && known.expiresAt > resolver.now()) return known.addresses;
  const answers = await Promise.all([A, AAAA].map((type) => {
    resolver.onLookup?.();
    return lookup(resolver.url, name, type);
  }));
  const addresses = answers.flatMap((a) => a.addresses);
  const ttl = Math.min(MAX_TTL_S, Math.max(MIN_TTL_S, ...answers.map((a) => a.ttl)));
  resolved.set(name, { addresses, expiresAt: resolver.now() + ttl * 1000 }, resolver.now());
  return addresses;
}

interface DnsJson {
  Status?: number;
  Answer?: { type?: number; TTL?: number; data?: string }[];
}

/** One question to the resolver: the addresses of one type, and the shortest TTL among them. */
async function lookup(url: string, name: string, type: number): Promise<{ addresses: string[]; ttl: number }> {
  const query = new URL(url);
  query.searchParams.set("name", name);
  query.searchParams.set("type", String(type));
  const text = await withDeadline(LOOKUP_TIMEOUT_MS, async (signal) => {
    const response = await fetch(query, { headers: { accept: "application/dns-json" }, redirect: "manual", signal });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`DNS over HTTPS answered ${response.status}`);
    }
    return response.text();
  });
  if (text.length > MAX_ANSWER_BYTES) throw new Error("DNS over HTTPS answered too much");
  const answer = JSON.parse(text) as DnsJson;
  // 3 is NXDOMAIN: the name does not exist, which is an answer.
  if (answer.Status !== 0 && answer.Status !== 3) throw new Error(`DNS over HTTPS answered status ${answer.Status}`);
  const records = (answer.Answer ?? []).filter((r) => r.type === type && typeof r.data === "string");
  return { addresses: records.map((r) => r.data!), ttl: Math.min(MAX_TTL_S, ...records.map((r) => r.TTL ?? MIN_TTL_S)) };
}
