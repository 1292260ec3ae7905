import type { Context } from "hono";
import { deleteCookie, getSignedCookie, setSignedCookie } from "hono/cookie";
import { randomToken, sha256Hex } from "../auth/secrets";
import { readAuthConfig, type Env } from "../config";

type WithEnv = { Bindings: Env };

// The web UI's login: a signed, HttpOnly, SameSite=Strict cookie naming the account, the mind
// it works in and a random nonce; form posts carry a token derived from that nonce.

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
const secure = <E extends WithEnv>(c: Context<E>) => c.env.ENVIRONMENT === "production";

/** Starts (or replaces) the UI session of an account. */
export async function startUiSession<E extends WithEnv>(c: Context<E>, accountId: string, mindId: string | null): Promise<void> {
  const session: UiSession = { accountId, mindId, nonce: randomToken(16), expiresAt: Math.floor(Date.now() / 1000) + TTL_SECONDS };
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

/** The session the cookie carries, or null when it is missing, forged or expired. */
export async function readUiSession<E extends WithEnv>(c: Context<E>): Promise<UiSession | null> {
  const value = await getSignedCookie(c, secretOf(c), COOKIE);
  if (!value) return null;
  try {
    const session = JSON.parse(atob(value)) as UiSession;
    if (typeof session.accountId !== "string" || typeof session.nonce !== "string") return null;
    if (!(session.expiresAt > Math.floor(Date.now() / 1000))) return null;
    return session;
  } catch {
    return null;
  }
}

/** Points the session at another mind (or none), keeping its nonce and expiry. */
export async function switchUiMind<E extends WithEnv>(c: Context<E>, session: UiSession, mindId: string | null): Promise<void> {
  await writeSession(c, { ...session, mindId });
}

export function endUiSession<E extends WithEnv>(c: Context<E>): void {
  deleteCookie(c, COOKIE, { path: "/ui", secure: secure(c) });
}

/** The token every form of the session carries; a forged cross-site post cannot know it. */
export async function csrfToken<E extends WithEnv>(c: Context<E>, session: UiSession): Promise<string> {
  return (await sha256Hex(`csrf:${session.nonce}:${c.env.JWT_SECRET}`)).slice(0, 32);
}
