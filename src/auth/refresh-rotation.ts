import { systemClock } from "../clock";
import { createDb } from "../db/client";
import { oauthErrorResponse } from "../http/errors";
import { type GrantTokens, revokeReplayedGrantRecord } from "../tenancy/grants";

// Refresh tokens rotate strictly (OAuth 2.1; the Security BCP, RFC 9700 §4.14): a refresh returns
// a new refresh token and spends the one sent. The provider keeps honouring the token just
// superseded, and honouring it silently replaces the client's current one, so a leaked token
// would outlive every rotation. Here the superseded token is refused, and since two holders of
// one refresh token means one of them is not the client, its grant ends with all its tokens.
// A client that lost a refresh's response must be authorized again.

/** The fields of the provider's grant record (`grant:<user>:<grant>` in OAUTH_KV) rotation reads. */
interface StoredGrant {
  refreshTokenId?: string;
  previousRefreshTokenId?: string;
  metadata?: { grantId?: unknown } | null;
}

/** A refresh token's id as the provider stores it: the hex SHA-256 of the token. */
async function refreshTokenId(token: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The refusal of a token request that sends a refresh token already exchanged, after revoking its
 * grant (the provider's, with every token, and edgemind's record); null for any other request,
 * which the provider answers.
 */
export async function refuseReplayedRefreshToken(env: Env, form: URLSearchParams, tokens: Pick<GrantTokens, "revokeGrant">): Promise<Response | null> {
  const sent = form.getAll("refresh_token");
  if (form.get("grant_type") !== "refresh_token" || sent.length !== 1) return null;
  const token = sent[0]!;
  // The provider's refresh tokens are `<user>:<grant>:<secret>`; it refuses any other shape itself.
  const parts = token.split(":");
  if (parts.length !== 3) return null;
  const [userId, providerGrantId] = parts as [string, string, string];
  const stored = await env.OAUTH_KV.get<StoredGrant>(`grant:${userId}:${providerGrantId}`, "json");
  if (!stored?.previousRefreshTokenId) return null;
  const id = await refreshTokenId(token);
  if (id !== stored.previousRefreshTokenId || id === stored.refreshTokenId) return null;
  const grantId = stored.metadata?.grantId;
  if (typeof grantId === "string") await revokeReplayedGrantRecord({ directory: createDb(env.DB), clock: systemClock }, grantId);
  await tokens.revokeGrant(providerGrantId, userId);
  const description = "this refresh token was already exchanged for a new one; its reuse revoked the grant, so the client must be authorized again";
  return oauthErrorResponse("invalid_grant", description);
}
