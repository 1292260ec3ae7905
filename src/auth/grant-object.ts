import { DurableObject } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { systemClock } from "../clock";
import { createDb } from "../db/client";
import { oauthGrants } from "../db/schema";
import { oauthErrorResponse } from "../http/errors";
import { sha256Hex } from "../secrets";
import { serialQueue } from "../serial";
import { revokeReplayedGrantRecord } from "../tenancy/grants";
import { oauthHelpers, REFRESH_TOKEN_TTL_SECONDS, tokenProvider } from "./oauth";
import type { GrantCall } from "./token-gate";

// One object per grant of the OAuth provider (named `<user>:<grant>`), through which every state
// change of the grant passes: exchanging its authorization code, rotating its refresh token,
// revoking it. Calls run one at a time, each to its end (the provider's reads and writes of
// OAUTH_KV included), so two requests can never both spend one code or one refresh token. The
// object's own storage is the truth about what was spent: KV is only the provider's store of
// the tokens' keys, and whatever a stale read of it says, a spent code or refresh token is
// refused here before the provider sees it. Every refresh token the grant spent is kept (its
// SHA-256), so any of them presented again revokes the grant with all its tokens.

interface GrantState {
  /** The SHA-256 of the authorization code exchanged (or being exchanged), once one was. */
  code: string | null;
  /** The SHA-256 of the refresh token that may be exchanged next; null while one is, or once none may. */
  current: string | null;
  /** Transitions so far: the code exchange is the first, each rotation one more. */
  generation: number;
  revoked: boolean;
  /** The grant's record in the directory (oauth_grants), whose revocation every /mcp call checks. */
  recordId: string | null;
}

const STATE_KEY = "grant";
const SPENT_PREFIX = "spent:";
const NEW_GRANT: GrantState = { code: null, current: null, generation: 0, revoked: false, recordId: null };
/** The object forgets a grant a day after its refresh tokens could last: by then its KV entries are gone too. */
const FORGET_AFTER_MS = (REFRESH_TOKEN_TTL_SECONDS + 24 * 60 * 60) * 1000;

const REVOKED = "the grant was revoked: the client must be authorized again";
const REUSED = {
  code: "this authorization code was already exchanged; its reuse revoked the grant and every token it issued, so the client must be authorized again",
  refresh: "this refresh token was already exchanged for a new one; its reuse revoked the grant, so the client must be authorized again",
};

/** The fields of the provider's grant record (`grant:<user>:<grant>` in OAUTH_KV) read here. */
interface StoredGrant {
  refreshTokenId?: string;
  previousRefreshTokenId?: string;
  metadata?: { grantId?: unknown } | null;
}

export class OAuthGrantObject extends DurableObject<Env> {
  private readonly serially = serialQueue();

  /** Answers a token request acting on this grant (a code exchange, a refresh, a revocation by the client). */
  async token(request: Request, call: GrantCall): Promise<Response> {
    return this.serially(() => (call.kind === "revoke" ? this.revokedByClient(request, call) : this.exchange(request, call)));
  }

  /** Revokes the grant and every token of it (the person revoked it, or authorized the client again). */
  async revoke(requestUrl: string, call: Pick<GrantCall, "userId" | "grantId">): Promise<void> {
    await this.serially(() => this.end(requestUrl, call, this.state()));
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  private async exchange(request: Request, call: GrantCall): Promise<Response> {
    const presented = await sha256Hex(call.token);
    const state = this.state();
    if (state.revoked) return oauthErrorResponse("invalid_grant", REVOKED);
    const spent = call.kind === "code" ? state.code === presented : this.spent(presented);
    if (spent) return this.end(request.url, call, state, REUSED[call.kind as "code" | "refresh"]);
    const fresh = state.code === null && state.generation === 0;
    if (call.kind === "code" ? state.code !== null : !fresh && state.current !== presented) {
      return oauthErrorResponse("invalid_grant", call.kind === "code" ? "Invalid authorization code" : "Invalid refresh token");
    }
    if (fresh || state.recordId === null) {
      const stored = await this.env.OAUTH_KV.get<StoredGrant>(`grant:${call.userId}:${call.grantId}`, "json");
      const recordId = stored?.metadata?.grantId;
      if (typeof recordId === "string") state.recordId = recordId;
      // A grant whose code was exchanged before this object kept it: the provider's record says which token is spent.
      if (fresh && call.kind === "refresh" && stored) {
        if (stored.previousRefreshTokenId === presented && stored.refreshTokenId !== presented) return this.end(request.url, call, state, REUSED.refresh);
        if (stored.refreshTokenId !== presented) return oauthErrorResponse("invalid_grant", "Invalid refresh token");
      }
    }
    if (!(await this.recordLive(state))) return this.end(request.url, call, state, REVOKED);
    return this.spend(request, call, state, presented);
  }

  /**
   * Spends the code or refresh token, then lets the provider issue the new tokens. Spent first, in
   * this object's storage: an answer lost on its way leaves it spent (the client authorizes again),
   * never usable twice. A refusal by the provider gives it back.
   */
  private async spend(request: Request, call: GrantCall, state: GrantState, presented: string): Promise<Response> {
    const before = { ...state };
    if (call.kind === "code") state.code = presented;
    else this.ctx.storage.kv.put(`${SPENT_PREFIX}${presented}`, state.generation);
    state.current = null;
    this.save(state);
    let response: Response;
    try {
      response = await tokenProvider(this.env, request.url).fetch(request, this.env, this.executionContext());
    } catch (error) {
      this.giveBack(call, before, presented);
      throw error;
    }
    if (!response.ok) {
      this.giveBack(call, before, presented);
      return response;
    }
    const issued = ((await response.clone().json()) as { refresh_token?: unknown }).refresh_token;
    state.current = typeof issued === "string" ? await sha256Hex(issued) : null;
    state.generation += 1;
    this.save(state);
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + FORGET_AFTER_MS);
    return response;
  }

  private giveBack(call: GrantCall, before: GrantState, presented: string): void {
    if (call.kind === "refresh") this.ctx.storage.kv.delete(`${SPENT_PREFIX}${presented}`);
    this.save(before);
  }

  /**
   * A client revoking one of its tokens (RFC 7009): the provider checks that the client owns it
   * and revokes it. A refresh token revokes the whole grant there; here too, once the provider's
   * grant is gone, so the object refuses the grant's tokens from then on.
   */
  private async revokedByClient(request: Request, call: GrantCall): Promise<Response> {
    const response = await tokenProvider(this.env, request.url).fetch(request, this.env, this.executionContext());
    const state = this.state();
    const presented = await sha256Hex(call.token);
    const ofGrant = presented === state.current || presented === state.code || this.spent(presented);
    if (ofGrant && !state.revoked && (await this.env.OAUTH_KV.get(`grant:${call.userId}:${call.grantId}`)) === null) await this.end(request.url, call, state);
    return response;
  }

  /**
   * Ends the grant: marked revoked here first (no token of it is exchanged again), then its
   * record in the directory (every /mcp call checks it) and the provider's tokens in KV.
   * With `reason`, answers the refusal of the request that ended it.
   */
  private async end(requestUrl: string, call: Pick<GrantCall, "userId" | "grantId">, state: GrantState, reason?: string): Promise<Response> {
    state.revoked = true;
    state.current = null;
    this.save(state);
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + FORGET_AFTER_MS);
    if (state.recordId !== null) await revokeReplayedGrantRecord({ directory: createDb(this.env.DB), clock: systemClock }, state.recordId);
    await oauthHelpers(this.env, requestUrl).revokeGrant(call.grantId, call.userId);
    return oauthErrorResponse("invalid_grant", reason ?? REVOKED);
  }

  /** Whether the grant's record in the directory is live (a grant that has none, from before records, is). */
  private async recordLive(state: GrantState): Promise<boolean> {
    if (state.recordId === null) return true;
    const row = await createDb(this.env.DB).select({ revokedAt: oauthGrants.revokedAt }).from(oauthGrants).where(eq(oauthGrants.id, state.recordId)).get();
    return row !== undefined && row.revokedAt === null;
  }

  private state(): GrantState {
    return { ...NEW_GRANT, ...this.ctx.storage.kv.get<GrantState>(STATE_KEY) };
  }

  private save(state: GrantState): void {
    this.ctx.storage.kv.put(STATE_KEY, state);
  }

  private spent(hash: string): boolean {
    return this.ctx.storage.kv.get(`${SPENT_PREFIX}${hash}`) !== undefined;
  }

  /** What the provider is handed as its execution context inside the object. */
  private executionContext(): ExecutionContext {
    return { waitUntil: (work: Promise<unknown>) => this.ctx.waitUntil(work), passThroughOnException: () => undefined, props: {} } as unknown as ExecutionContext;
  }
}
