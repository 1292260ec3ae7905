import { type Context, Hono } from "hono";
import { AppError, invalid } from "../../errors";
import { diffCold, readCold, rollbackCold, updateCold } from "../../notes/cold-memory";
import { COLD_MAX_CHARS, type ColdVersionInfo, listColdVersions } from "../../notes/cold-store";
import { type DocumentLocale, documentLocale, localizeHeadings } from "../../notes/document";
import { inNamespace } from "../../tenancy/mind-context";
import { listNamespaces } from "../../tenancy/namespaces";
import { checkAgentName, DEFAULT_AGENT } from "../../tenancy/principal";
import type { Dictionary } from "../i18n";
import { authorLabel, counted } from "../labels";
import { CsrfField, PostButton } from "../layout";
import { NamespaceSwitch } from "../namespaces";
import { formText, page, shortTime } from "../render";
import type { UiEnv } from "../ui-env";

export const coldPages = new Hono<UiEnv>();

/** The namespace a cold page shows: `?agent=`, or `default`. */
function agentOf(value: string | undefined): string {
  if (value === undefined || value === "") return DEFAULT_AGENT;
  checkAgentName(value);
  return value;
}

const versionOf = (value: string | undefined) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw invalid("version: a whole number from 0");
  return n;
};

/** What the edit form holds when it is shown again: the person's text and the version they started from. */
interface Draft {
  text: string;
  base: number;
}

/**
 * The cold page of one namespace. After a conflicting save, `draft` keeps the person's text in
 * the form, now based on the newest version, with a link to what changed since theirs.
 */
async function coldPage(c: Context<UiEnv>, agent: string, draft?: Draft) {
  const { t, csrf, locale } = c.var;
  const here = inNamespace(c.var.mindContext, agent);
  const [cold, versions, namespaces] = await Promise.all([
    readCold(here),
    listColdVersions(here, { limit: 100, offset: 0 }),
    listNamespaces(c.var.mindContext),
  ]);
  const q = agent === DEFAULT_AGENT ? "" : `&agent=${agent}`;
  const shown = localizeHeadings(cold.text, locale);
  const conflict = draft !== undefined && draft.base !== cold.version;
  return page(
    c,
    t.cold,
    <>
      <NamespaceSwitch
        t={t}
        namespaces={namespaces.some((ns) => ns.agent === agent) ? namespaces : [...namespaces, { agent, memories: 0, notes: 0, cold_version: 0 }]}
        current={agent}
        href={(a) => (a === DEFAULT_AGENT ? "/ui/cold" : `/ui/cold?agent=${encodeURIComponent(a)}`)}
        count={(ns) => `v${ns.cold_version}`}
      />
      <p class="meta">{`${t.version} ${cold.version} · ${shortTime(cold.updated_at)}`}</p>
      {cold.text ? <pre id="cold-text">{shown}</pre> : <p>{t.emptyCold}</p>}
      {conflict ? (
        <p class="card" id="cold-conflict">
          {t.coldConflict.replace("{mine}", String(draft.base)).replace("{theirs}", String(cold.version))}{" "}
          <a href={`/ui/cold/diff?from=${draft.base}&to=${cold.version}${q}`}>{t.coldConflictDiff}</a>
        </p>
      ) : null}
      <ColdEditor t={t} csrf={csrf} agent={agent} version={cold.version} shown={shown} draft={draft} />
      <h2>{t.versions}</h2>
      {versions.length > 1 ? <VersionCompare t={t} agent={agent} versions={versions} /> : null}
      <VersionTable t={t} csrf={csrf} agent={agent} current={cold.version} versions={versions} accountId={c.var.session.accountId} />
    </>,
    conflict ? { error: t.coldChanged, status: 409 } : {},
  );
}

/** The edit form: the text shown (or the person's draft after a conflict), saved onto `version`. */
function ColdEditor(props: { t: Dictionary; csrf: string; agent: string; version: number; shown: string; draft: Draft | undefined }) {
  const { t, draft, shown } = props;
  return (
    <details class="card" open={draft !== undefined}>
      <summary>{t.coldEdit}</summary>
      <form method="post" action="/ui/cold" id="cold-edit">
        <CsrfField token={props.csrf} />
        <input type="hidden" name="agent" value={props.agent} />
        {/* Saving lands only on the version shown here; after a conflict, on the newest one. */}
        <input type="hidden" name="version" value={String(props.version)} />
        {/* Never shorter than the text shown: a document consolidations grew is edited, not cut. */}
        <textarea name="text" maxlength={Math.max(COLD_MAX_CHARS, shown.length, draft?.text.length ?? 0)} style="min-height:16rem" aria-label={t.coldEdit}>{draft?.text ?? shown}</textarea>
        <div class="actions"><button type="submit">{t.save}</button></div>
      </form>
    </details>
  );
}

/** Two versions to compare, the newest and the one before it chosen. */
function VersionCompare({ t, agent, versions }: { t: Dictionary; agent: string; versions: ColdVersionInfo[] }) {
  return (
    <form method="get" action="/ui/cold/diff" class="filters card">
      <input type="hidden" name="agent" value={agent} />
      <label>
        {t.from}
        <br />
        <select name="from">{versions.map((v, i) => <option value={String(v.version)} selected={i === 1}>{v.version}</option>)}</select>
      </label>
      <label>
        {t.to}
        <br />
        <select name="to">{versions.map((v, i) => <option value={String(v.version)} selected={i === 0}>{v.version}</option>)}</select>
      </label>
      <button type="submit" id="compare">{t.diff}</button>
    </form>
  );
}

/** Every version: who wrote it and when, its diff with the one before, and a rollback to it. */
function VersionTable(props: { t: Dictionary; csrf: string; agent: string; current: number; versions: ColdVersionInfo[]; accountId: string }) {
  const { t, agent } = props;
  const q = agent === DEFAULT_AGENT ? "" : `&agent=${agent}`;
  return (
    <div class="scroll">
      <table class="versions">
        <tr><th>{t.version}</th><th>{t.author}</th><th>{t.when}</th><th></th></tr>
        {props.versions.map((v) => (
          <tr>
            <td>{v.version}</td>
            <td>{authorLabel(t, v.author, props.accountId)}</td>
            <td>{shortTime(v.created_at)}</td>
            <td>
              <div class="actions" style="margin:0">
                <a class="button secondary" href={`/ui/cold/diff?from=${v.version - 1}&to=${v.version}${q}`}>{t.diff}</a>
                {v.version === props.current ? null : (
                  <PostButton action="/ui/cold/rollback" csrf={props.csrf} label={t.rollback} kind="secondary" fields={{ version: String(v.version), agent }} />
                )}
              </div>
            </td>
          </tr>
        ))}
      </table>
    </div>
  );
}

coldPages.get("/cold", (c) => coldPage(c, agentOf(c.req.query("agent"))));

/**
 * Saves an edit through the same compare-and-swap as PUT /cold. The reader's headings go back
 * in the mind's language; a version someone else wrote meanwhile loses nothing of either text.
 */
coldPages.post("/cold", async (c) => {
  const agent = agentOf(await formText(c, "agent"));
  const base = versionOf(await formText(c, "version"));
  const typed = (await formText(c, "text")).replaceAll("\r\n", "\n");
  const here = inNamespace(c.var.mindContext, agent);
  const text = localizeHeadings(typed, documentLocale(c.var.mindContext.mind.locale));
  const after = agent === DEFAULT_AGENT ? "" : `&agent=${agent}`;
  try {
    const current = await readCold(here);
    if (current.version === base && current.text === text) return c.redirect(`/ui/cold?ok=unchanged${after}`, 303);
    await updateCold(here, { text, version: base });
  } catch (err) {
    if (!(err instanceof AppError) || err.code !== "memory_changed") throw err;
    return coldPage(c, agent, { text: typed, base });
  }
  return c.redirect(`/ui/cold?ok=saved${after}`, 303);
});

coldPages.get("/cold/diff", async (c) => {
  const { t } = c.var;
  const agent = agentOf(c.req.query("agent"));
  const diff = await diffCold(inNamespace(c.var.mindContext, agent), versionOf(c.req.query("from")), versionOf(c.req.query("to")));
  // The hunks only: the file header lines would read as one more added and removed line.
  const all = diff.patch.split("\n");
  const first = all.findIndex((line) => line.startsWith("@@"));
  const lines = first < 0 ? [] : all.slice(first).filter((line) => !line.startsWith("\\")).map((line) => shownLine(line, c.var.locale));
  return page(
    c,
    `${t.diff}: v${diff.from} → v${diff.to}`,
    <>
      <p class="meta">{`+ ${counted(c.var.locale, "lines-added", diff.added)} · − ${counted(c.var.locale, "lines-removed", diff.removed)}`}</p>
      <pre class="diff" id="diff">
        {lines.map((line) => (
          <span class={line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : undefined}>
            {line}
            {"\n"}
          </span>
        ))}
      </pre>
      <p>
        <a class="button secondary" href={agent === DEFAULT_AGENT ? "/ui/cold" : `/ui/cold?agent=${agent}`}>{t.back}</a>
      </p>
    </>,
  );
});

/** A diff line with edgemind's own heading said in the reader's language, its +/−/space mark kept. */
const shownLine = (line: string, locale: DocumentLocale) => (line.startsWith("@@") ? line : line.slice(0, 1) + localizeHeadings(line.slice(1), locale));

coldPages.post("/cold/rollback", async (c) => {
  const agent = agentOf(await formText(c, "agent"));
  await rollbackCold(inNamespace(c.var.mindContext, agent), versionOf(await formText(c, "version")));
  return c.redirect(`/ui/cold?ok=rolledBack${agent === DEFAULT_AGENT ? "" : `&agent=${agent}`}`, 303);
});
