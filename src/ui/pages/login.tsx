import { Hono } from "hono";
import { verifyAccountToken } from "../../auth/jwt";
import { redeemLoginLink } from "../../auth/login-links";
import { addressOf, countAuthFailure, refuseBlockedCaller } from "../../auth/middleware";
import { AUTHORIZE_PATH } from "../../auth/oauth";
import { readAuthConfig } from "../../config";
import { AppError } from "../../errors";
import { RateLimited } from "../../limits/rate-limits";
import { accountExists, listMinds } from "../../tenancy/minds";
import { DICTIONARIES, type UiLocale } from "../i18n";
import { Layout } from "../layout";
import { endUiSession, readUiSession, startUiSession } from "../session";
import type { UiEnv } from "../ui-env";

/**
 * Login: a one-time link from the bot opens a confirmation page whose POST redeems it (so a
 * link preview fetching the GET does not use it up), or a human's JWT is pasted.
 */
export const loginRoutes = new Hono<UiEnv>();

/**
 * Where a login may continue to: only an OAuth authorization page of this site, written as a
 * browser writes an address (printable ASCII), so it is always a valid `Location`: a control
 * character would otherwise fail the redirect after the link was spent and the cookie set.
 */
const safeNext = (next: unknown): string | undefined =>
  typeof next === "string" && next.length <= 4000 && next.startsWith(`${AUTHORIZE_PATH}?`) && /^[\x21-\x7e]+$/.test(next) ? next : undefined;

/**
 * The login page. `query` is the address's query, which the language switch keeps (a login
 * link's token, an OAuth request); without one the switch keeps where the login continues to.
 */
export function LoginPage(props: { locale: UiLocale; token?: string; error?: string; notice?: string; next?: string; query?: string }) {
  const t = DICTIONARIES[props.locale];
  const query = props.query ?? (props.next ? `?${new URLSearchParams({ next: props.next })}` : undefined);
  const flash = props.error ? { text: props.error, error: true } : props.notice ? { text: props.notice } : null;
  const next = props.next ? <input type="hidden" name="next" value={props.next} /> : null;
  return (
    <Layout t={t} locale={props.locale} title={t.loginTitle} path="/ui/login" query={query} flash={flash}>
      {props.token ? (
        <form method="post" action="/ui/login" class="card">
          <p>{t.loginConfirm}</p>
          {next}
          <input type="hidden" name="token" value={props.token} />
          <button type="submit" id="continue">{t.loginContinue}</button>
        </form>
      ) : null}
      <form method="post" action="/ui/login" class="card">
        {next}
        <label for="jwt">{t.loginJwt}</label>
        <textarea id="jwt" name="jwt" rows={3} style="min-height:4rem" autocomplete="off"></textarea>
        <div class="actions">
          <button type="submit" class="secondary">{t.login}</button>
        </div>
      </form>
    </Layout>
  );
}

loginRoutes.get("/login", (c) => {
  const token = c.req.query("token");
  c.header("Cache-Control", "no-store");
  return c.html(
    <LoginPage locale={c.var.locale} token={token && token.length <= 200 ? token : undefined} next={safeNext(c.req.query("next"))} query={new URL(c.req.url).search} />,
  );
});

loginRoutes.post("/login", async (c) => {
  const form = await c.req.parseBody();
  const t = DICTIONARIES[c.var.locale];
  const deps = c.var.deps;
  const linkToken = typeof form.token === "string" ? form.token.trim() : "";
  const jwt = typeof form.jwt === "string" ? form.jwt.trim() : "";
  const next = safeNext(form.next);
  const address = addressOf(c.req.raw);
  const presented = linkToken || jwt || null;
  // A failed login counts like a failed API authentication: past the limit the page says so (429).
  const refuse = (err: RateLimited) => {
    c.header("Retry-After", String(err.retryAfterSeconds));
    return c.html(<LoginPage locale={c.var.locale} error={err.message} next={next} />, 429);
  };
  const fail = async (message: string) => {
    try {
      await countAuthFailure(c.env, address, presented);
    } catch (err) {
      if (err instanceof RateLimited) return refuse(err);
      throw err;
    }
    return c.html(<LoginPage locale={c.var.locale} error={message} next={next} />, 401);
  };
  try {
    await refuseBlockedCaller(c.env, address, presented);
  } catch (err) {
    if (err instanceof RateLimited) return refuse(err);
    throw err;
  }
  let accountId: string;
  let mindId: string | null = null;
  if (linkToken) {
    try {
      ({ accountId, mindId } = await redeemLoginLink(deps, linkToken));
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return fail(t.loginFailed);
    }
  } else {
    const verified = jwt ? await verifyAccountToken(readAuthConfig(c.env), jwt) : null;
    if (!verified || !(await accountExists(deps, verified))) return fail(t.jwtFailed);
    accountId = verified;
  }
  mindId ??= (await listMinds(deps, accountId))[0]?.id ?? null;
  await startUiSession(c, accountId, mindId);
  return c.redirect(next ?? (mindId ? "/ui/memories" : "/ui/minds"), 303);
});

loginRoutes.post("/logout", async (c) => {
  // Logging out needs no CSRF token: the worst a forged post can do is log someone out.
  const session = await readUiSession(c);
  if (session) await endUiSession(c, session, (await c.req.parseBody())["everywhere"] === "1");
  return c.redirect("/ui/login", 303);
});
