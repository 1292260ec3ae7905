import { Hono } from "hono";
import { AGENT_PATTERN } from "../../auth/middleware";
import { tokensUsedToday, usageSince, utcDay } from "../../llm/ledger";
import { listConsolidations } from "../../notes/claims";
import { deleteNote, listNotes, verifyNote } from "../../notes/notes";
import { readingNamespace, tokenAccountOf } from "../../tenancy/mind-context";
import { listNamespaces } from "../../tenancy/namespaces";
import { counted, label, namespaceLabel } from "../labels";
import { PostButton } from "../layout";
import { NamespaceSwitch } from "../namespaces";
import { page, shortTime } from "../render";
import type { UiEnv } from "../ui-env";

// Read-only pages: the notes waiting for consolidation, model usage and background job runs.

export const activityPages = new Hono<UiEnv>();

activityPages.get("/notes", async (c) => {
  const { t, mindContext } = c.var;
  const asked = c.req.query("agent");
  const agent = asked && AGENT_PATTERN.test(asked) ? asked : null;
  const [{ notes, total }, namespaces] = await Promise.all([
    listNotes(readingNamespace(mindContext, agent), { limit: 100, offset: 0 }),
    listNamespaces(mindContext),
  ]);
  return page(
    c,
    t.notes,
    <>
      <NamespaceSwitch
        t={t}
        namespaces={namespaces}
        current={agent}
        allHref="/ui/notes"
        href={(a) => `/ui/notes?agent=${encodeURIComponent(a)}`}
        count={(ns) => String(ns.notes)}
      />
      <p class="meta">{counted(c.var.locale, "notes-waiting", total)}</p>
      {notes.length === 0 ? <p>{t.nothing}</p> : null}
      {notes.map((n) => (
        <article class="card note" data-id={n.id}>
          <div class="meta">
            <span class={n.source === "user" ? "badge ok" : "badge warn"}>{n.source === "user" ? t.verified : t.unverified}</span>
            <span class="badge">{n.source === "user" ? t.user : t.agent}</span>
            {n.agent !== "default" ? <span class="badge">{n.agent}</span> : null}
            {n.category_hint ? <span class="badge">{`section_${n.category_hint}` in t ? label(t, "section", n.category_hint) : label(t, "category", n.category_hint)}</span> : null}
            {shortTime(n.created_at)}
          </div>
          <p>{n.text}</p>
          <div class="actions">
            {n.source === "user" ? null : <PostButton action={`/ui/notes/${n.id}/verify`} csrf={c.var.csrf} label={t.verify} />}
            <PostButton action={`/ui/notes/${n.id}/delete`} csrf={c.var.csrf} label={t.delete} kind="danger" />
          </div>
        </article>
      ))}
    </>,
  );
});

activityPages.post("/notes/:id/verify", async (c) => {
  await verifyNote(c.var.mindContext, c.req.param("id"));
  return c.redirect("/ui/notes?ok=verifiedDone", 303);
});

activityPages.post("/notes/:id/delete", async (c) => {
  await deleteNote(c.var.mindContext, c.req.param("id"));
  return c.redirect("/ui/notes?ok=deleted", 303);
});

activityPages.get("/usage", async (c) => {
  const { t, deps, mindContext } = c.var;
  const account = tokenAccountOf(mindContext);
  const since = utcDay(new Date(deps.clock.now().getTime() - 29 * 86_400_000));
  // Background jobs run for the whole service; a person sees what they did to this mind.
  const [rows, usedToday, runs] = await Promise.all([
    usageSince(mindContext, account, since),
    tokensUsedToday(mindContext, account),
    listConsolidations(readingNamespace(mindContext, null), 20),
  ]);
  return page(
    c,
    t.usage,
    <>
      <h2>{t.modelUsage}</h2>
      <p>{`${t.usedToday}: ${usedToday} · ${t.budget}: ${account.dailyBudget ?? t.none}`}</p>
      {rows.length === 0 ? (
        <p class="card" id="no-usage">{t.noUsage}</p>
      ) : (
        <div class="scroll">
          <table>
            <tr><th>{t.day}</th><th>{t.purpose}</th><th>{t.calls}</th><th>{t.failures}</th><th>{t.tokensIn}</th><th>{t.tokensOut}</th></tr>
            {rows.map((r) => (
              <tr><td>{r.day}</td><td>{label(t, "purpose", r.purpose)}</td><td>{r.calls}</td><td>{r.failures}</td><td>{r.inputTokens}</td><td>{r.outputTokens}</td></tr>
            ))}
          </table>
        </div>
      )}
      <h2>{t.consolidationsTitle}</h2>
      {runs.length === 0 ? (
        <p class="card" id="no-consolidations">{t.noConsolidations}</p>
      ) : (
        <div class="scroll">
          <table id="consolidations">
            <tr><th>{t.started}</th><th>{t.agentNs}</th><th>{t.status}</th><th>{t.notesFolded}</th><th>{t.version}</th></tr>
            {runs.map((r) => (
              <tr>
                <td>{shortTime(r.started_at)}</td>
                <td>{namespaceLabel(t, r.agent)}</td>
                <td>{label(t, "status", r.status)}</td>
                <td>{r.note_count}</td>
                <td>{r.from_version === null ? "—" : `${r.from_version} → ${r.to_version ?? "…"}`}</td>
              </tr>
            ))}
          </table>
        </div>
      )}
    </>,
  );
});
