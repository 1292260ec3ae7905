import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import { readAuthConfig } from "../config";
import { randomToken, sha256Hex } from "../secrets";

type WithEnv = { Bindings: Env };

// The web UI's login: a signed, HttpOnly, SameSite=Strict cookie naming the account, the mind
// it works in and a random nonce; form posts carry a token derived from that nonce. Each login
// is also a row of ui_sessions (keyed by the nonce's hash), so logging out ends it at once.

const COOKIE = "edgemind_ui";
const TTL_SECONDS = 7 * 24 * 60 * 60;

export interface UiSession {
  accountId: string;
  mindId: string | null;
  nonce: string;
  expiresAt: number;
}

/** Derived from JWT_SECRET (checked for length by readAuthConfig), so no second secret is needed. */
const secretOf = <E extends WithEnv>(c: Context<E>) => {
  readAuthConfig(c.env);
  return `ui-session:${c.env.JWT_SECRET}`;
};
/**
 * Secure unless the page is served over plain HTTP on this machine (`wrangler dev`), where a
 * browser would not send a Secure cookie back: over HTTPS, on any other host, or in production.
 */
const secure = <E extends WithEnv>(c: Context<E>) => {
  const url = new URL(c.req.url);
  return url.protocol === "https:" || !isLoopback(url.hostname) || c.env.ENVIRONMENT === "production";
};

const isLoopback = (hostname: string) =>
  hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname);

/** Starts (or replaces) the UI session of an account. */
export async function startUiSession<E extends WithEnv>(c: Context<E>, accountId: string, mindId: string | null): Promise<void> {
  const now = Math.floor(Date.now() / 1000);
  const session: UiSession = { accountId, mindId, nonce: randomToken(16), expiresAt: now + TTL_SECONDS };
  await c.env.DB.batch([
    c.env.DB.prepare("DELETE FROM ui_sessions WHERE account_id = ? AND expires_at <= ?").bind(accountId, now),
    c.env.DB.prepare("INSERT INTO ui_sessions (id, account_id, expires_at, created_at) VALUES (?, ?, ?, ?)").bind(
      await sha256Hex(session.nonce),
      accountId,
      session.expiresAt,
      new Date().toISOString(),
    ),
  ]);
  await writeSession(c, session);
}

async function writeSession<E extends WithEnv>(c: Context<E>, session: UiSession): Promise<void> {
  await setSignedCookie(c, COOKIE, btoa(JSON.stringify(session)), secretOf(c), {
    path: "/ui",
    httpOnly: true,
    sameSite: "Strict",
    secure: secure(c),
    maxAge: Math.max(0, session.expiresAt - Math.floor(Date.now() / 1000)),
  });
}

/** The session the cookie carries, or null when it is missing, forged, expired or ended. */
export async function readUiSession<E extends WithEnv>(c: Context<E>): Promise<UiSession | null> {
  const value = await getSignedCookie(c, secretOf(c), COOKIE);
  if (!value) return null;
  let session: UiSession;
  try {
    session = JSON.parse(atob(value)) as UiSession;
  } catch {
    return null;
  }
  const now = Math.floor(Date.now() / 1000);
  if (typeof session.accountId !== "string" || typeof session.nonce !== "string" || !(session.expiresAt > now)) return null;
  const row = await c.env.DB.prepare("SELECT 1 AS live FROM ui_sessions WHERE id = ? AND account_id = ? AND expires_at > ?")
    .bind(await sha256Hex(session.nonce), session.accountId, now)
    .first();
  return row ? session : null;
}

/** Points the session at another mind (or none), keeping its nonce and expiry. */
export async function switchUiMind<E extends WithEnv>(c: Context<E>, session: UiSession, mindId: string | null): Promise<void> {
  await writeSession(c, { ...session, mindId });
}

/** Ends this login, or with `everywhere` every login of the account, and deletes the cookie. */
export async function endUiSession<E extends WithEnv>(c: Context<E>, session: UiSession, everywhere: boolean): Promise<void> {
  const statement = everywhere
    ? c.env.DB.prepare("DELETE FROM ui_sessions WHERE account_id = ?").bind(session.accountId)
    : c.env.DB.prepare("DELETE FROM ui_sessions WHERE id = ?").bind(await sha256Hex(session.nonce));
  await statement.run();
  deleteCookie(c, COOKIE, { path: "/ui", secure: secure(c) });
}

/** The token every form of the session carries; a forged cross-site post cannot know it. */
export async function csrfToken<E extends WithEnv>(c: Context<E>, session: UiSession): Promise<string> {
  return (await sha256Hex(`csrf:${session.nonce}:${c.env.JWT_SECRET}`)).slice(0, 32);
}
