import { oauthErrorResponse } from "../http/errors";

// Refresh tokens rotate strictly (OAuth 2.1; the Security BCP, RFC 9700 §4.14) and an
// authorization code is spent once (RFC 6749 §4.1.2). @cloudflare/workers-oauth-provider keeps
// its grants in KV and changes them with a read and then a write, so two requests at once could
// both spend one token, and KV read elsewhere may be stale; it also keeps honouring the refresh
// token just superseded. So every token request that acts on a grant (exchanging its code,
// refreshing, a client revoking a token of it) is handed to that grant's object
// (src/auth/grant-object.ts), which decides one request at a time and then lets the provider
// answer; the provider's own checks still run behind it.

/** A token request that acts on one grant: what it presents, and the grant its token names. */
export interface GrantCall {
  kind: "code" | "refresh" | "revoke";
  token: string;
  userId: string;
  grantId: string;
}

/** The provider's codes and tokens: `<user>:<grant>:<secret>`, each part bounded (ours are far shorter). */
const GRANT_TOKEN = /^([A-Za-z0-9_-]{1,64}):([A-Za-z0-9_-]{1,64}):[A-Za-z0-9_-]{1,128}$/;

/** The parameter each kind of request presents its token in. */
const PARAMETER = { code: "code", refresh: "refresh_token", revoke: "token" } as const;

/**
 * What a token request does to which grant; a refusal when its token cannot be one of the
 * provider's (before its parts name an object or a KV key); null when it names no grant (no
 * token, a parameter sent twice, another grant type): the provider answers that alone.
 */
export function grantCallOf(form: URLSearchParams): GrantCall | Response | null {
  const grantTypes = form.getAll("grant_type");
  if (grantTypes.length > 1) return null;
  const grantType = grantTypes[0];
  const kind = grantType === "authorization_code" ? "code" : grantType === "refresh_token" ? "refresh" : grantType === undefined ? "revoke" : null;
  if (kind === null) return null;
  const sent = form.getAll(PARAMETER[kind]);
  if (sent.length !== 1 || sent[0] === "") return null;
  const token = sent[0]!;
  const match = GRANT_TOKEN.exec(token);
  if (!match) {
    // RFC 7009: a token the server does not know is answered as revoked.
    if (kind === "revoke") return new Response(null, { status: 200 });
    return oauthErrorResponse("invalid_grant", kind === "code" ? "Invalid authorization code format" : "Invalid token format");
  }
  return { kind, token, userId: match[1]!, grantId: match[2]! };
}

/** The object that decides every change of one provider grant. */
export function grantObject(env: Pick<Env, "OAUTH_GRANTS">, userId: string, grantId: string) {
  return env.OAUTH_GRANTS.get(env.OAUTH_GRANTS.idFromName(`${userId}:${grantId}`));
}
