import { type Context, Hono } from "hono";
import { createWebhook, deleteWebhook, enableWebhook, listAttempts, listWebhooks, type Webhook, type WebhookAttempt } from "../../webhooks/subscriptions";
import type { Dictionary } from "../i18n";
import { CsrfField, PostButton } from "../layout";
import { formText, page, shortTime } from "../render";
import type { UiEnv } from "../ui-env";

// The current mind's webhooks with their last deliveries: the same domain functions as
// /minds/:id/webhooks. A new webhook's signing secret is shown once, on the page that answers its
// creation, and never again.

export const webhookPages = new Hono<UiEnv>();

/** Deliveries each webhook shows (the API's log has the last 100). */
const SHOWN_ATTEMPTS = 10;

const fill = (text: string, values: Record<string, string>) => text.replace(/\{(\w+)\}/g, (_, name: string) => values[name] ?? "");

function Deliveries(props: { t: Dictionary; attempts: WebhookAttempt[] }) {
  const { t, attempts } = props;
  if (attempts.length === 0) return <p class="meta">{t.webhookNoDeliveries}</p>;
  return (
    <table>
      <tr><th>{t.webhookAt}</th><th>{t.webhookEvent}</th><th>{t.webhookStatus}</th></tr>
      {attempts.map((a) => (
        <tr class={a.ok ? "ok" : "failed"}>
          <td>{shortTime(a.at)}</td>
          <td>{`#${a.sequence} ${a.type}`}</td>
          <td>{`${a.status ?? t.webhookNoAnswer}${a.error ? ` — ${a.error}` : ""}`}</td>
        </tr>
      ))}
    </table>
  );
}

function WebhookCard(props: { t: Dictionary; csrf: string; webhook: Webhook; attempts: WebhookAttempt[] }) {
  const { t, csrf, webhook: w } = props;
  return (
    <div class="card webhook" data-id={w.id}>
      <h3>{w.url}</h3>
      <div class="meta">{`${w.enabled ? t.webhookOn : t.webhookOff} · ${t.webhookPending}: ${w.pending}`}</div>
      {w.disabled_reason ? <div class="meta">{`${shortTime(w.disabled_at)}: ${w.disabled_reason}`}</div> : null}
      {w.failing_since && w.enabled ? <div class="meta">{fill(t.webhookFailing, { since: shortTime(w.failing_since), next: shortTime(w.next_attempt_at) })}</div> : null}
      {w.previous_secret_until ? <div class="meta">{fill(t.webhookRotating, { until: shortTime(w.previous_secret_until) })}</div> : null}
      <div class="meta">{`${t.webhookTypes}: ${w.types.join(", ")}`}</div>
      <h4>{t.webhookDeliveries}</h4>
      <Deliveries t={t} attempts={props.attempts} />
      <div class="actions">
        {w.enabled ? null : <PostButton action="/ui/webhooks/enable" csrf={csrf} label={t.webhookEnable} fields={{ webhook: w.id }} />}
        <PostButton action="/ui/webhooks/delete" csrf={csrf} label={t.webhookDelete} kind="danger" fields={{ webhook: w.id }} />
      </div>
    </div>
  );
}

async function webhooksPage(c: Context<UiEnv>, created?: { url: string; secret: string }) {
  const { t, csrf, mindContext } = c.var;
  const webhooks = await listWebhooks(mindContext);
  const attempts = await Promise.all(webhooks.map((w) => listAttempts(mindContext, w.id, SHOWN_ATTEMPTS)));
  return page(
    c,
    t.webhooksTitle,
    <>
      {created ? (
        <section class="card" id="new-webhook">
          <p>{`${created.url}: ${t.webhookCreated}`}</p>
          <pre>{created.secret}</pre>
        </section>
      ) : null}
      <p class="meta">{t.webhooksHelp}</p>
      {webhooks.length === 0 ? <p>{t.noWebhooks}</p> : null}
      {webhooks.map((webhook, i) => <WebhookCard t={t} csrf={csrf} webhook={webhook} attempts={attempts[i] ?? []} />)}
      <form method="post" action="/ui/webhooks" class="card">
        <h2>{t.webhookCreate}</h2>
        <CsrfField token={csrf} />
        <label for="url">{t.webhookUrl}</label>
        <input id="url" name="url" type="url" maxlength={2000} required autocomplete="off" />
        <div class="actions"><button type="submit">{t.create}</button></div>
      </form>
    </>,
  );
}

webhookPages.get("/webhooks", (c) => webhooksPage(c));

webhookPages.post("/webhooks", async (c) => {
  const created = await createWebhook(c.var.mindContext, { url: (await formText(c, "url")).trim() });
  return webhooksPage(c, created);
});

webhookPages.post("/webhooks/enable", async (c) => {
  await enableWebhook(c.var.mindContext, await formText(c, "webhook"));
  return c.redirect("/ui/webhooks?ok=webhookEnabled", 303);
});

webhookPages.post("/webhooks/delete", async (c) => {
  await deleteWebhook(c.var.mindContext, await formText(c, "webhook"));
  return c.redirect("/ui/webhooks?ok=webhookDeleted", 303);
});
