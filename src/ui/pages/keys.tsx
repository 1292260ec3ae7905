import { type Context, Hono } from "hono";
import { createMindKey, listMindKeys, revokeMindKey } from "../../tenancy/keys";
import { checkAgentName } from "../../tenancy/principal";
import { namespaceLabel } from "../labels";
import { CsrfField, PostButton } from "../layout";
import { formText, page, shortTime } from "../render";
import type { UiEnv } from "../ui-env";

// The current mind's keys: the same domain functions as /minds/:id/keys. A new key's secret is
// shown once, on the page that answers its creation, and never again.

export const keyPages = new Hono<UiEnv>();

async function keysPage(c: Context<UiEnv>, created?: { key: string; name: string | null }) {
  const { t, deps, csrf, mindContext: { mind } } = c.var;
  const keys = await listMindKeys(deps, mind.id);
  return page(
    c,
    t.keysTitle,
    <>
      {created ? (
        <section class="card" id="new-key">
          <p>{created.name ? `${created.name}: ${t.keyCreated}` : t.keyCreated}</p>
          <pre>{created.key}</pre>
        </section>
      ) : null}
      <p class="meta">{t.keysHelp}</p>
      {keys.length === 0 ? <p>{t.noKeys}</p> : null}
      {keys.map((k) => (
        <div class="card key" data-prefix={k.prefix}>
          <h3>{k.name ?? t.keyUnnamed}</h3>
          <div class="meta">{`${t.keyPrefix}: ${k.prefix}`}</div>
          <div class="meta">{`${t.agentNs}: ${k.agent === null ? t.keyAgentAll : namespaceLabel(t, k.agent)}`}</div>
          <div class="meta">
            {`${t.createdAt}: ${shortTime(k.created_at)} · ${t.lastUsedAt}: ${k.last_used_at ? shortTime(k.last_used_at) : t.never}`}
            {k.revoked_at ? ` · ${t.keyRevokedAt}: ${shortTime(k.revoked_at)}` : ""}
          </div>
          {k.revoked_at ? null : (
            <div class="actions">
              <PostButton action="/ui/keys/revoke" csrf={csrf} label={t.revoke} kind="danger" fields={{ key: k.id }} />
            </div>
          )}
        </div>
      ))}
      <form method="post" action="/ui/keys" class="card">
        <h2>{t.keyCreate}</h2>
        <CsrfField token={csrf} />
        <label for="name">{t.keyName}</label>
        <input id="name" name="name" maxlength={80} autocomplete="off" />
        <label for="agent">{t.keyAgent}</label>
        <input id="agent" name="agent" maxlength={64} pattern="[a-z0-9][a-z0-9_\-]{0,63}" autocomplete="off" />
        <div class="actions"><button type="submit">{t.create}</button></div>
      </form>
    </>,
  );
}

keyPages.get("/keys", (c) => keysPage(c));

keyPages.post("/keys", async (c) => {
  const agent = (await formText(c, "agent")).trim();
  if (agent !== "") checkAgentName(agent);
  const name = (await formText(c, "name")).trim();
  const created = await createMindKey(c.var.deps, c.var.mindContext.mind.id, { agent: agent || null, name: name || null });
  return keysPage(c, created);
});

keyPages.post("/keys/revoke", async (c) => {
  await revokeMindKey(c.var.deps, c.var.mindContext.mind.id, await formText(c, "key"));
  return c.redirect("/ui/keys?ok=keyRevoked", 303);
});
