import { AuthorizationError, type AuthRequest, type ConsentDescription, type OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import { type Context, Hono } from "hono";
import type { Child } from "hono/jsx";
import { AUTHORIZE_PATH, grantTokens, MIND_SCOPE, oauthHelpers, requirePkceS256 } from "../../auth/oauth";
import { type GrantInfo, listConnectedGrants, recordGrant, revokeGrant } from "../../tenancy/grants";
import { resolveMindContext } from "../../tenancy/mind-context";
import { getMind, listMinds, type Mind } from "../../tenancy/minds";
import { listNamespaces } from "../../tenancy/namespaces";
import { checkAgentName } from "../../tenancy/principal";
import type { Dictionary } from "../i18n";
import { namespaceLabel } from "../labels";
import { CsrfField, Layout, PostButton } from "../layout";
import { formText, page, shortTime } from "../render";
import { csrfToken, readUiSession, type UiSession } from "../session";
import type { UiEnv } from "../ui-env";
import { LoginPage } from "./login";

// Connecting an MCP client by URL: the OAuth provider sends the person here to sign in, pick a
// mind (and maybe an agent namespace) and allow or deny; the mind's connected apps are listed
// on /ui/apps with the time each was granted and last used, and can be revoked there.

export const authorizePages = new Hono<UiEnv>();

/** A redirect that came from another site carries no SameSite=Strict cookie: this marks the second try. */
const SAME_SITE_MARK = "edgemind_same_site";

authorizePages.get("/oauth/authorize", async (c) => {
  const { t } = c.var;
  const oauth = oauthHelpers(c.env, c.req.url);
  const request = await parseOrFail(c, oauth);
  if (request instanceof Response) return request;
  const session = await readUiSession(c);
  if (!session) {
    const url = new URL(c.req.url);
    if (!url.searchParams.has(SAME_SITE_MARK)) {
      // Reload once from this site, so the browser sends the login cookie if there is one.
      url.searchParams.set(SAME_SITE_MARK, "1");
      c.header("Cache-Control", "no-store");
      return c.html(`<!doctype html><meta http-equiv="refresh" content="0;url=${escapeAttribute(url.pathname + url.search)}"><title>edgemind</title>`);
    }
    c.header("Cache-Control", "no-store");
    return c.html(<LoginPage locale={c.var.locale} notice={t.authorizeSignIn} next={url.pathname + url.search} query={url.search} />, 401);
  }
  const minds = await listMinds(c.var.deps, session.accountId);
  if (minds.length === 0) return standalone(c, t.authorizeTitle, <p><a href="/ui/minds">{t.authorizeNoMind}</a></p>);
  const details = await oauth.describeConsent(request);
  const consent = await oauth.beginConsent(request);
  const namespaces = await namespacesOf(c, session.accountId, minds);
  const body = (
    <ConsentForm t={t} details={details} handle={consent.handle} minds={minds} namespaces={namespaces} session={session} csrf={await csrfToken(c, session)} />
  );
  const response = await standalone(c, t.authorizeTitle, body);
  for (const [name, value] of consent.headers) response.headers.append(name, value);
  // The form's answer redirects to the client: allow exactly that destination after the post.
  response.headers.set("Content-Security-Policy", consentPolicy(request.redirectUri));
  return response;
});

authorizePages.post("/oauth/authorize", async (c) => {
  const { t, deps } = c.var;
  const session = await readUiSession(c);
  if (!session) return c.text(t.authorizeSignIn, 401);
  if ((await formText(c, "_csrf")) !== (await csrfToken(c, session))) return c.text("forbidden: the form is stale, reload the page", 403);
  const oauth = oauthHelpers(c.env, c.req.url);
  const handle = await formText(c, "handle");
  try {
    if ((await formText(c, "decision")) !== "allow") {
      const denied = await oauth.denyConsent(c.req.raw, handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    const mind = await getMind(deps, session.accountId, await formText(c, "mind"));
    const agent = (await formText(c, "agent")).trim();
    if (agent !== "") checkAgentName(agent);
    const approved = await oauth.approveConsent(c.req.raw, handle, { scope: [MIND_SCOPE] });
    const details = await oauth.describeConsent(approved.request);
    const grant = await recordGrant(deps, {
      accountId: session.accountId,
      mindId: mind.id,
      agent: agent || null,
      clientId: approved.request.clientId,
      clientName: details.clientName,
      redirectHost: details.redirectHost,
      scope: [MIND_SCOPE],
    });
    const { redirectTo } = await oauth.completeAuthorization({
      request: approved.request,
      userId: session.accountId,
      metadata: { grantId: grant.id },
      scope: [MIND_SCOPE],
      props: { grantId: grant.id },
    });
    approved.headers.set("Location", redirectTo);
    return new Response(null, { status: 302, headers: approved.headers });
  } catch (err) {
    if (!(err instanceof AuthorizationError)) throw err;
    return standalone(c, t.authorizeTitle, <p>{`${t.authorizeFailed}: ${err.description}`}</p>, 400);
  }
});

/** The authorization request, or the page or redirect that answers a bad one. */
async function parseOrFail(c: Context<UiEnv>, oauth: OAuthHelpers): Promise<AuthRequest | Response> {
  try {
    return requirePkceS256(await oauth.parseAuthRequest(c.req.raw));
  } catch (err) {
    if (!(err instanceof AuthorizationError)) throw err;
    // Only a validated client and redirect URI may be sent back the error.
    if (err.redirectTo) return c.redirect(err.redirectTo, 302);
    return standalone(c, c.var.t.authorizeTitle, <p>{`${c.var.t.authorizeFailed}: ${err.description}`}</p>, 400);
  }
}

/** Minds whose namespaces the consent page offers; a person with more picks the rest by name. */
const MINDS_WITH_NAMESPACES = 20;

/** The agent namespaces of the person's minds, each with the mind that holds it. */
async function namespacesOf(c: Context<UiEnv>, accountId: string, minds: Mind[]): Promise<{ agent: string; mind: string }[]> {
  const found = await Promise.all(
    minds.slice(0, MINDS_WITH_NAMESPACES).map(async (mind) => {
      const mindContext = await resolveMindContext(c.var.deps, { kind: "human", accountId }, { mindId: mind.id });
      return (await listNamespaces(mindContext)).map((ns) => ({ agent: ns.agent, mind: mind.name }));
    }),
  );
  return found.flat();
}

function ConsentForm(props: {
  t: Dictionary;
  details: ConsentDescription;
  handle: string;
  minds: Mind[];
  namespaces: { agent: string; mind: string }[];
  session: UiSession;
  csrf: string;
}) {
  const { t, details } = props;
  return (
    <form method="post" action={AUTHORIZE_PATH} class="card" id="consent">
      <p><strong id="client-name">{details.clientName}</strong> {t.authorizeAsks}</p>
      <p class="meta">{details.clientDomain ?? t.authorizeUnverified}</p>
      <p>{`${t.authorizeRedirect} `}<strong>{details.redirectHost}</strong></p>
      {details.redirectIsLoopback ? <p class="flash error">{t.authorizeLoopback}</p> : null}
      <CsrfField token={props.csrf} />
      <input type="hidden" name="handle" value={props.handle} />
      <label for="mind">{t.authorizeMind}</label>
      <select id="mind" name="mind">
        {props.minds.map((m) => <option value={m.id} selected={m.id === props.session.mindId}>{m.name}</option>)}
      </select>
      <label for="agent">{t.authorizeAgent}</label>
      <input id="agent" name="agent" list="namespaces" maxlength={64} pattern="[a-z0-9][a-z0-9_\-]{0,63}" autocomplete="off" />
      <datalist id="namespaces">
        {props.namespaces.map((ns) => <option value={ns.agent}>{ns.mind}</option>)}
      </datalist>
      <p class="meta">{t.authorizeAgentList}</p>
      <h2>{t.authorizeCan}</h2>
      <ul>
        <li>{t.authorizeCanRead}</li>
        <li>{t.authorizeCanWrite}</li>
      </ul>
      <p class="meta">{t.authorizeCannot}</p>
      <div class="actions">
        <button type="submit" name="decision" value="allow" id="allow">{t.allow}</button>
        <button type="submit" name="decision" value="deny" class="secondary" id="deny">{t.deny}</button>
      </div>
    </form>
  );
}

/** A page of the signed-in UI without the mind navigation (the person is mid-way through connecting). */
function standalone(c: Context<UiEnv>, title: string, body: Child, status: 200 | 400 = 200) {
  c.header("Cache-Control", "no-store");
  return c.html(<Layout t={c.var.t} locale={c.var.locale} title={title} path={AUTHORIZE_PATH} query={new URL(c.req.url).search}>{body}</Layout>, status);
}

function consentPolicy(redirectUri: string): string {
  const target = new URL(redirectUri);
  const destination = target.protocol === "http:" || target.protocol === "https:" ? target.origin : `${target.protocol}`;
  return `default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self' ${destination}; frame-ancestors 'none'`;
}

const escapeAttribute = (value: string) => value.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export const appPages = new Hono<UiEnv>();

/**
 * Connections of one app as a person sees it: the same name, destination and namespace. An app
 * that registered again (a new client id) is one card with a line per connection.
 */
function byApp(grants: GrantInfo[]): GrantInfo[][] {
  const apps = new Map<string, GrantInfo[]>();
  for (const g of grants) {
    const key = JSON.stringify([g.client_name, g.redirect_host, g.agent]);
    apps.set(key, [...(apps.get(key) ?? []), g]);
  }
  return [...apps.values()];
}

appPages.get("/apps", async (c) => {
  const { t, deps, mindContext: { mind }, csrf } = c.var;
  const grants = await listConnectedGrants(deps, grantTokens(c.env, c.req.url), mind.id);
  return page(
    c,
    t.connections,
    <>
      <p class="meta">{t.connectionsHelp}</p>
      {grants.length === 0 ? <p>{t.noConnections}</p> : null}
      {byApp(grants).map((app) => (
        <div class="card app">
          <h3>{app[0]!.client_name}</h3>
          <div class="meta">{`${app[0]!.redirect_host}${app[0]!.agent ? ` · ${t.agentNs}: ${namespaceLabel(t, app[0]!.agent)}` : ""}`}</div>
          <ul class="tasks">
            {app.map((g) => (
              <li class="connection">
                <span class="meta">
                  {`${app.length > 1 ? `${t.connectionOf} ${g.client_id.slice(0, 8)}… · ` : ""}${t.grantedAt}: ${shortTime(g.created_at)} · ${t.lastUsedAt}: ${g.last_used_at ? shortTime(g.last_used_at) : t.never}`}
                </span>
                <div class="actions">
                  <PostButton action="/ui/apps/revoke" csrf={csrf} label={t.revoke} kind="danger" fields={{ grant: g.id }} />
                </div>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </>,
  );
});

appPages.post("/apps/revoke", async (c) => {
  const { deps, mindContext: { mind } } = c.var;
  await revokeGrant(deps, grantTokens(c.env, c.req.url), mind.id, await formText(c, "grant"));
  return c.redirect("/ui/apps?ok=revoked", 303);
});
