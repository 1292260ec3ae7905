import { Hono } from "hono";
import { invalid } from "../../errors";
import { memorySupersedes } from "../../memory/fields";
import { updateMemory } from "../../memory/memories";
import type { Memory } from "../../memory/rows";
import { CsrfField } from "../layout";
import { formText, localTime } from "../render";
import type { UiEnv } from "../ui-env";

// A memory's timeline on its page: every statement of it and of what it replaced, newest
// first, each with the day it was stated and until when it held; and the form that marks it as
// replacing another memory (by key or id), which then stays in the timeline as replaced.

export const timelinePages = new Hono<UiEnv>();

type View = Pick<UiEnv["Variables"], "t" | "locale">;

/** One statement of the timeline: what it said, since when, and until when and by what it was replaced. */
function Statement({ m, shown, v }: { m: Memory; shown: string; v: View }) {
  const { t, locale } = v;
  const held = m.valid_until === null ? t.inForce : `${t.replacedOn} ${localTime(locale, m.valid_until)}`;
  return (
    <li data-id={m.id} class={m.valid_until === null ? "current" : "replaced"}>
      {m.id === shown ? <strong>{m.content}</strong> : <a href={`/ui/memories/${m.id}`}>{m.content}</a>}
      <div class="meta">
        {`${m.key} · ${t.stated}: ${localTime(locale, m.observed_at)} · ${held}`}
        {m.superseded_by === null ? null : (
          <>
            {" · "}
            <a href={`/ui/memories/${m.superseded_by}`}>{t.replacedBy}</a>
          </>
        )}
      </div>
    </li>
  );
}

/** The timeline of the memory `shown`, and (for a current memory) the form marking it as replacing another. */
export function Timeline({ shown, versions, v, csrf }: { shown: Memory; versions: Memory[]; v: View; csrf: string }) {
  const { t } = v;
  return (
    <section class="timeline">
      <h2>{t.timeline}</h2>
      <ol>
        {versions.map((m) => <Statement m={m} shown={shown.id} v={v} />)}
      </ol>
      {shown.superseded_by === null ? (
        <form method="post" action={`/ui/memories/${shown.id}/replaces`} class="card">
          <CsrfField token={csrf} />
          <label for="replaces">{t.markReplaces}</label>
          <input id="replaces" name="replaces" required maxlength={memorySupersedes.maxLength ?? undefined} placeholder={t.replacesPlaceholder} />
          <button type="submit">{t.save}</button>
        </form>
      ) : null}
    </section>
  );
}

timelinePages.post("/memories/:id/replaces", async (c) => {
  const parsed = memorySupersedes.safeParse(await formText(c, "replaces"));
  if (!parsed.success) throw invalid(c.var.t.replacesPlaceholder);
  const m = await updateMemory(c.var.mindContext, c.req.param("id"), { supersedes: parsed.data });
  return c.redirect(`/ui/memories/${m.id}?ok=saved`, 303);
});
