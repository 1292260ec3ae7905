import { and, eq, gt, isNull, sql } from "drizzle-orm";
import { isoNow } from "../clock";
import { deleteWhere, inRounds, type RetentionStep } from "../db/prune";
import { loginLinks } from "../db/schema";
import type { Deps } from "../deps";
import { unauthorized } from "../errors";
import { randomToken, sha256Hex } from "../secrets";

/** How long a login link works. */
export const LOGIN_LINK_TTL_MS = 10 * 60 * 1000;

export interface LoginLink {
  /** The secret to put in the link; shown once, only its hash is stored. */
  token: string;
  expires_at: string;
}

export interface LoginGrant {
  accountId: string;
  /** The mind the link was made for (the chat's mind), if any. */
  mindId: string | null;
}

/** The web UI's address that redeems a login link's token. */
export const loginUrl = (origin: string, token: string) => `${origin}/ui/login?token=${encodeURIComponent(token)}`;

/** Makes a one-time login link for an account. */
export async function createLoginLink(deps: Deps, grant: LoginGrant, ttlMs = LOGIN_LINK_TTL_MS): Promise<LoginLink> {
  const token = randomToken(32);
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
  await deps.directory.insert(loginLinks).values({
    tokenHash: await sha256Hex(token),
    accountId: grant.accountId,
    mindId: grant.mindId,
    createdAt: now.toISOString(),
    expiresAt,
  });
  return { token, expires_at: expiresAt };
}

/**
 * Uses a login link: marks it used in the same statement that checks it is unused and
 * unexpired, so two concurrent uses cannot both succeed. Anything else is "unauthorized".
 */
export async function redeemLoginLink(deps: Deps, token: string): Promise<LoginGrant> {
  const now = isoNow(deps.clock);
  const used = await deps.directory
    .update(loginLinks)
    .set({ usedAt: now })
    .where(and(eq(loginLinks.tokenHash, await sha256Hex(token)), isNull(loginLinks.usedAt), gt(loginLinks.expiresAt, now)))
    .returning({ accountId: loginLinks.accountId, mindId: loginLinks.mindId });
  const grant = used[0];
  if (!grant) throw unauthorized("this login link is invalid, used or expired");
  return grant;
}

/** Daily retention: links expired more than a day ago (used or not) are deleted. */
export const LOGIN_LINK_RETENTION_STEP: RetentionStep = {
  name: "login_links_expired",
  run: (deps, now, o) => {
    const before = new Date(now.getTime() - 24 * 60 * 60 * 1000).toISOString();
    return inRounds(o, () =>
      deleteWhere(deps, sql`login_links`, sql`select rowid from login_links where expires_at < ${before} limit ${o.batchSize}`),
    );
  },
};
