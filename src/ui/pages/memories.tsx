import { Hono } from "hono";
import { describeZodError, invalid } from "../../errors";
import { memoryInput } from "../../memory/fields";
import { memoryHistoryOf } from "../../memory/history";
import { retrieveMemories } from "../../memory/hybrid-search";
import { LIST_LIMIT, SEARCH_LIMIT } from "../../memory/limits";
import { deleteMemory, getMemory, listMemories, updateMemory, verifyMemory } from "../../memory/memories";
import { CATEGORIES, type Category, type Memory, memoryTitle, PRIORITIES, SOURCES, type Source, TAG_MAX } from "../../memory/rows";
import { memoryTimeline } from "../../memory/versions";
import type { MindContext } from "../../tenancy/mind-context";
import type { Dictionary } from "../i18n";
import { authorLabel, counted, label } from "../labels";
import { CsrfField, PostButton } from "../layout";
import { formText, localTime, page, shortTime } from "../render";
import type { UiEnv } from "../ui-env";
import { Timeline } from "./memory-timeline";

export const memoryPages = new Hono<UiEnv>();

// The edit form's fields, checked by the memory's own shape (the same bounds as REST and MCP).
const memoryForm = memoryInput.pick({ content: true, tags: true, priority: true }).partial({ priority: true });

const oneOf = <T extends string>(values: readonly T[], value: string | undefined): T | undefined =>
  values.includes(value as T) ? (value as T) : undefined;

/** When the memory stops being recalled, in the reader's words; nothing when it never does. */
function Expiry({ m, v }: { m: Memory; v: Pick<UiEnv["Variables"], "t" | "locale" | "deps"> }) {
  if (m.expires_at === null) return null;
  const past = Date.parse(m.expires_at) <= v.deps.clock.now().getTime();
  return <span class={past ? "badge warn expiry" : "badge expiry"}>{`${past ? v.t.expired : v.t.expires}: ${localTime(v.locale, m.expires_at)}`}</span>;
}

function MemoryCard({ m, v }: { m: Memory; v: UiEnv["Variables"] }) {
  const { t, csrf } = v;
  return (
    <article class="card memory" data-key={m.key}>
      <h3 class="content">{m.content}</h3>
      <div class="meta">
        <span class="badge">{label(t, "category", m.category)}</span>
        <span class="badge">{`${t.priority}: ${label(t, "priority", m.priority)}`}</span>
        <span class={m.verified ? "badge ok" : "badge warn"}>{m.verified ? t.verified : t.unverified}</span>
        <span class="badge">{m.source === "user" ? t.user : t.agent}</span>
        {m.agent !== "default" ? <span class="badge">{m.agent}</span> : null}
        {m.tags.map((tag) => <span class="badge">#{tag}</span>)}
        <Expiry m={m} v={v} />
      </div>
      <div class="meta">
        {`${t.key}: ${m.key} · ${t.confidence} ${m.confidence} · ${t.stated} ${shortTime(m.observed_at)}`}
        {m.valid_until === null ? null : <span class="badge warn">{`${t.replacedOn} ${shortTime(m.valid_until)}`}</span>}
      </div>
      <div class="actions">
        {m.verified ? null : <PostButton action={`/ui/memories/${m.id}/verify`} csrf={csrf} label={t.verify} />}
        <a class="button secondary" href={`/ui/memories/${m.id}`}>{`${t.edit} · ${t.history}`}</a>
        <PostButton action={`/ui/memories/${m.id}/delete`} csrf={csrf} label={t.delete} kind="danger" />
      </div>
    </article>
  );
}

/** The list's filters as the query gives them, each bounded. */
interface MemoryFilter {
  q: string;
  category: Category | undefined;
  source: Source | undefined;
  tag: string | undefined;
  verified: boolean | undefined;
  /** Replaced statements too (include=superseded). */
  superseded: boolean;
}

function filterOf(query: (name: string) => string | undefined): MemoryFilter {
  const verified = query("verified");
  return {
    q: (query("q") ?? "").trim().slice(0, 200),
    category: oneOf(CATEGORIES, query("category")),
    source: oneOf(SOURCES, query("source")),
    tag: (query("tag") ?? "").trim().slice(0, TAG_MAX) || undefined,
    verified: verified === "true" ? true : verified === "false" ? false : undefined,
    superseded: query("superseded") === "on",
  };
}

/** The memories the filter finds: searched when it has words, listed otherwise. */
async function memoriesFound(mindContext: MindContext, f: MemoryFilter): Promise<{ list: Memory[]; total: number }> {
  const { q, tag, category, source, verified } = f;
  const view = { includeSuperseded: f.superseded };
  if (q) {
    const { hits } = await retrieveMemories(mindContext, { q, tag, category, limit: SEARCH_LIMIT.max, ...view });
    const list = hits.map((h) => h.memory).filter((m) => (source ? m.source === source : true) && (verified === undefined || m.verified === verified));
    return { list, total: list.length };
  }
  const { memories: list, total } = await listMemories(mindContext, { category, tag, source, verified, limit: LIST_LIMIT.max, offset: 0, ...view });
  return { list, total };
}

function MemoryFilters({ t, f }: { t: Dictionary; f: MemoryFilter }) {
  return (
    <form method="get" action="/ui/memories" class="filters card" role="search">
      <label>
        {t.search}
        <br />
        <input type="search" name="q" value={f.q} placeholder={t.searchPlaceholder} />
      </label>
      <label>
        {t.category}
        <br />
        <select name="category">
          <option value="">{t.any}</option>
          {CATEGORIES.map((x) => <option value={x} selected={x === f.category}>{label(t, "category", x)}</option>)}
        </select>
      </label>
      <label>
        {t.tag}
        <br />
        <input name="tag" value={f.tag ?? ""} size={10} />
      </label>
      <label>
        {t.source}
        <br />
        <select name="source">
          <option value="">{t.any}</option>
          <option value="user" selected={f.source === "user"}>{t.user}</option>
          <option value="agent" selected={f.source === "agent"}>{t.agent}</option>
        </select>
      </label>
      <label>
        {t.verified}
        <br />
        <select name="verified">
          <option value="">{t.any}</option>
          <option value="true" selected={f.verified === true}>{t.verified}</option>
          <option value="false" selected={f.verified === false}>{t.unverified}</option>
        </select>
      </label>
      <label>
        <input type="checkbox" name="superseded" checked={f.superseded} />
        {` ${t.showReplaced}`}
      </label>
      <button type="submit">{t.search}</button>
    </form>
  );
}

memoryPages.get("/memories", async (c) => {
  const { t } = c.var;
  const filter = filterOf((name) => c.req.query(name));
  const { list, total } = await memoriesFound(c.var.mindContext, filter);
  return page(
    c,
    t.memories,
    <>
      <MemoryFilters t={t} f={filter} />
      <p class="meta">{counted(c.var.locale, "memories", total)}</p>
      {list.length === 0 ? <p>{t.nothing}</p> : list.map((m) => <MemoryCard m={m} v={c.var} />)}
    </>,
  );
});

/** The form correcting a current memory in place (a replaced one is not changed). */
function EditForm({ m, v }: { m: Memory; v: UiEnv["Variables"] }) {
  const { t, csrf } = v;
  return (
    <form method="post" action={`/ui/memories/${m.id}`} class="card">
      <CsrfField token={csrf} />
      <label for="content">{t.content}</label>
      <textarea id="content" name="content" required maxlength={memoryForm.shape.content.maxLength ?? undefined}>{m.content}</textarea>
      <label for="tags">{t.tags}</label>
      <input id="tags" name="tags" value={m.tags.join(", ")} style="width:100%" />
      <label for="priority">{t.priority}</label>
      <select id="priority" name="priority">
        {PRIORITIES.map((p) => <option value={p} selected={p === m.priority}>{label(t, "priority", p)}</option>)}
      </select>
      <div class="actions">
        <button type="submit">{t.save}</button>
        <a class="button secondary" href="/ui/memories">{t.back}</a>
      </div>
    </form>
  );
}

memoryPages.get("/memories/:id", async (c) => {
  const { t, mindContext, csrf } = c.var;
  const m = await getMemory(mindContext, c.req.param("id"));
  const [history, versions] = await Promise.all([memoryHistoryOf(mindContext, m.id), memoryTimeline(mindContext, m.id)]);
  return page(
    c,
    `${t.edit}: ${memoryTitle(m)}`,
    <>
      {m.superseded_by === null ? <EditForm m={m} v={c.var} /> : <p class="card">{m.content}</p>}
      <Timeline shown={m} versions={versions} v={c.var} csrf={csrf} />
      <h2>{t.history}</h2>
      <div class="scroll">
        <table>
          <tr><th>{t.when}</th><th>{t.author}</th><th>{t.action}</th><th>{t.content}</th></tr>
          {history.map((h) => (
            <tr>
              <td>{shortTime(h.at)}</td>
              <td>{authorLabel(t, h.actor, c.var.session.accountId)}</td>
              <td>
                {label(t, "action", h.action)}
                {h.changes ? (
                  <ul class="changes">
                    {Object.entries(h.changes).map(([field, [before, after]]) => (
                      <li data-field={field}>{`${label(t, "field", field)}: ${shownValue(c.var, field, before)} → ${shownValue(c.var, field, after)}`}</li>
                    ))}
                  </ul>
                ) : null}
              </td>
              <td>
                {h.old_content !== null && h.old_content !== h.new_content ? <del>{h.old_content}</del> : null}
                {h.old_content !== null && h.old_content !== h.new_content ? <br /> : null}
                {h.new_content}
              </td>
            </tr>
          ))}
        </table>
      </div>
    </>,
  );
});

/** A field's value in a history entry as the reader says it. */
function shownValue(v: Pick<UiEnv["Variables"], "t" | "locale">, field: string, value: unknown): string {
  const { t } = v;
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) return "—";
  if (field === "priority") return label(t, "priority", String(value));
  if (field === "category") return label(t, "category", String(value));
  if (field === "source") return value === "user" ? t.user : t.agent;
  if (field === "verified") return value ? t.verified : t.unverified;
  if (field === "tags" && Array.isArray(value)) return value.map((tag) => `#${String(tag)}`).join(" ");
  if (field === "expires_at" && typeof value === "string") return localTime(v.locale, value);
  return String(value);
}

memoryPages.post("/memories/:id", async (c) => {
  const { mindContext } = c.var;
  const form = memoryForm.safeParse({
    content: await formText(c, "content"),
    tags: (await formText(c, "tags")).split(",").map((x) => x.trim()).filter(Boolean),
    priority: (await formText(c, "priority")) || undefined,
  });
  if (!form.success) throw invalid(describeZodError(form.error));
  const m = await updateMemory(mindContext, c.req.param("id"), form.data);
  return c.redirect(`/ui/memories/${m.id}?ok=saved`, 303);
});

memoryPages.post("/memories/:id/verify", async (c) => {
  await verifyMemory(c.var.mindContext, c.req.param("id"));
  return c.redirect(`${backTo(c.req.header("Referer"))}`, 303);
});

memoryPages.post("/memories/:id/delete", async (c) => {
  await deleteMemory(c.var.mindContext, c.req.param("id"));
  return c.redirect("/ui/memories?ok=deleted", 303);
});

/** Back to the list the action came from (its filters kept), on this site only. */
function backTo(referer: string | undefined): string {
  try {
    const url = new URL(referer ?? "");
    if (url.pathname === "/ui/memories") {
      url.searchParams.set("ok", "verifiedDone");
      return `${url.pathname}${url.search}`;
    }
  } catch {
    // No usable referrer: the plain list.
  }
  return "/ui/memories?ok=verifiedDone";
}
