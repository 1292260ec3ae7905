import { Hono } from "hono";
import { AGENT_PATTERN } from "../../auth/middleware";
import { listJobRuns } from "../../cron/job-runs";
import { tokensUsedToday, usageSince, utcDay } from "../../llm/ledger";
import { listNamespaces } from "../../minds/namespaces";
import { listNotes } from "../../notes/notes";
import { NamespaceSwitch } from "../namespaces";
import { page, shortTime } from "../render";
import type { UiEnv } from "../ui-env";

// Read-only pages: the notes waiting for consolidation, model usage and background job runs.

export const activityPages = new Hono<UiEnv>();

activityPages.get("/notes", async (c) => {
  const { t, deps, uiScope } = c.var;
  const asked = c.req.query("agent");
  const agent = asked && AGENT_PATTERN.test(asked) ? asked : null;
  const [{ notes, total }, namespaces] = await Promise.all([
    listNotes(deps, { ...uiScope, agentFilter: agent }, { limit: 100, offset: 0 }),
    listNamespaces(deps, uiScope),
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
      <p class="meta">{`${total} ${t.noteCount}`}</p>
      {notes.length === 0 ? <p>{t.nothing}</p> : null}
      {notes.map((n) => (
        <article class="card">
          <div class="meta">
            <span class="badge">{n.source === "user" ? t.user : t.agent}</span>
            {n.agent !== "default" ? <span class="badge">{n.agent}</span> : null}
            {n.category_hint ? <span class="badge">{n.category_hint}</span> : null}
            {shortTime(n.created_at)}
          </div>
          <p>{n.text}</p>
        </article>
      ))}
    </>,
  );
});

activityPages.get("/usage", async (c) => {
  const { t, deps, mind } = c.var;
  const since = utcDay(new Date(deps.clock.now().getTime() - 29 * 86_400_000));
  const [rows, usedToday, runs] = await Promise.all([
    usageSince(deps, mind.id, since),
    tokensUsedToday(deps, mind.id),
    listJobRuns(deps, { limit: 20 }),
  ]);
  return page(
    c,
    t.usage,
    <>
      <h2>{t.modelUsage}</h2>
      <p>{`${t.usedToday}: ${usedToday} · ${t.budget}: ${mind.settings.daily_token_budget ?? t.none}`}</p>
      <div class="scroll">
        <table>
          <tr><th>{t.day}</th><th>{t.purpose}</th><th>{t.calls}</th><th>{t.failures}</th><th>{t.tokensIn}</th><th>{t.tokensOut}</th></tr>
          {rows.map((r) => (
            <tr><td>{r.day}</td><td>{r.purpose}</td><td>{r.calls}</td><td>{r.failures}</td><td>{r.inputTokens}</td><td>{r.outputTokens}</td></tr>
          ))}
        </table>
      </div>
      <h2>{t.jobRuns}</h2>
      <div class="scroll">
        <table>
          <tr><th>{t.job}</th><th>{t.started}</th><th>{t.counts}</th><th>{t.error}</th></tr>
          {runs.map((r) => (
            <tr><td>{r.job}</td><td>{shortTime(r.started_at)}</td><td><code>{JSON.stringify(r.counts)}</code></td><td>{r.error ?? ""}</td></tr>
          ))}
        </table>
      </div>
    </>,
  );
});
