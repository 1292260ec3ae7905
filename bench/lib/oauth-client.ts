import { createHash, randomBytes } from "node:crypto";

// An MCP client connecting by OAuth, over HTTP as a hosted assistant would (register, a person's
// consent in the web UI, the token endpoint), for parts that drive `wrangler dev` from Node.

const REDIRECT = "https://client.example/callback";
const FORM = { "Content-Type": "application/x-www-form-urlencoded" };

export interface Tokens {
  status: number;
  access_token?: string;
  refresh_token?: string;
  error?: string;
}

/** A person's browser: cookies kept between requests, redirects not followed. */
function browser(base: string) {
  const jar = new Map<string, string>();
  return async (method: string, path: string, form?: Record<string, string>) => {
    const headers = new Headers(form ? FORM : {});
    if (jar.size > 0) headers.set("Cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    if (method === "POST") headers.set("Origin", base);
    const res = await fetch(`${base}${path}`, { method, headers, body: form ? new URLSearchParams(form) : undefined, redirect: "manual" });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = ""] = cookie.split(";");
      const at = pair.indexOf("=");
      if (pair.slice(at + 1) === "" || /max-age=0/i.test(cookie)) jar.delete(pair.slice(0, at));
      else jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return { status: res.status, location: res.headers.get("Location"), text: await res.text() };
  };
}

const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

/** Registers a public client, has the person allow it on `mindId`, and answers its code and verifier. */
export async function authorizedCode(base: string, jwt: string, mindId: string): Promise<{ clientId: string; code: string; verifier: string }> {
  const registered = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: "probe", redirect_uris: [REDIRECT], grant_types: ["authorization_code", "refresh_token"], token_endpoint_auth_method: "none" }),
  });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  const send = browser(base);
  if ((await send("POST", "/ui/login", { jwt })).status !== 303) throw new Error("login refused");
  const verifier = randomBytes(32).toString("base64url");
  const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: REDIRECT, state: "s", code_challenge: s256(verifier), code_challenge_method: "S256" });
  const page = await send("GET", `/ui/oauth/authorize?${query}`);
  const handle = /name="handle" value="([^"]+)"/.exec(page.text)?.[1];
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
  if (!handle || !csrf) throw new Error(`consent page: ${page.status}`);
  const allowed = await send("POST", "/ui/oauth/authorize", { _csrf: csrf, handle, mind: mindId, agent: "", decision: "allow" });
  const code = allowed.location ? new URL(allowed.location).searchParams.get("code") : null;
  if (!code) throw new Error(`consent: ${allowed.status}`);
  return { clientId, code, verifier };
}

/** A token request, answered with its status and body. */
export async function tokenRequest(base: string, fields: Record<string, string>): Promise<Tokens> {
  const res = await fetch(`${base}/oauth/token`, { method: "POST", headers: FORM, body: new URLSearchParams(fields) });
  return { status: res.status, ...((await res.json().catch(() => ({}))) as object) };
}

export const exchange = (base: string, grant: { clientId: string; code: string; verifier: string }) =>
  tokenRequest(base, { grant_type: "authorization_code", code: grant.code, code_verifier: grant.verifier, redirect_uri: REDIRECT, client_id: grant.clientId });

export const refresh = (base: string, clientId: string, refreshToken: string) =>
  tokenRequest(base, { grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });

/** Whether an access token still gets /mcp's tool list. */
export async function accessWorks(base: string, accessToken: string): Promise<boolean> {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { Authorization: `Bearer ${accessToken}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  await res.arrayBuffer();
  return res.status === 200;
}
