import { Hono } from "hono";
import { invalid } from "../../errors";
import { listChats } from "../../sessions/chats";
import { completeSession } from "../../sessions/messages";
import { getSessionWithState, listSessions } from "../../sessions/sessions";
import { uiHistory } from "../../sessions/windows";
import { chatLabel, counted, label } from "../labels";
import { PostButton } from "../layout";
import { formText, page, shortTime } from "../render";
import type { UiEnv } from "../ui-env";

export const sessionPages = new Hono<UiEnv>();

/** Most messages one session page shows. */
const HISTORY_PAGE = 500;

sessionPages.get("/sessions", async (c) => {
  const { t, mindContext } = c.var;
  const chats = await listChats(mindContext, { limit: 100, offset: 0 });
  const perChat = await Promise.all(chats.map((chat) => listSessions(mindContext, { chatId: chat.id, limit: 100, offset: 0 })));
  return page(
    c,
    t.sessions,
    chats.length === 0 ? (
      <p>{t.nothing}</p>
    ) : (
      <>
        {chats.map((chat, i) => (
          <section class="card">
            <h3>{chatLabel(t, chat)}</h3>
            <ul class="tasks">
              {(perChat[i] ?? []).map((s) => (
                <li>
                  <a class="task" href={`/ui/sessions/${s.id}`}>{s.repo_path ? `${s.repo_path} · ${s.task_name}` : s.task_name}</a>{" "}
                  <span class="meta">{`${counted(c.var.locale, "messages", s.message_count)} · ${shortTime(s.last_message_at ?? s.created_at)}`}</span>{" "}
                  {s.active ? <span class="badge ok">{t.active}</span> : null}
                </li>
              ))}
            </ul>
          </section>
        ))}
      </>
    ),
  );
});

sessionPages.get("/sessions/:id", async (c) => {
  const { t, mindContext, csrf } = c.var;
  const session = await getSessionWithState(mindContext, c.req.param("id"));
  const history = await uiHistory(mindContext, session.id, { after: 0, limit: HISTORY_PAGE });
  const ephemeralCount = history.messages.filter((m) => m.ephemeral).length;
  return page(
    c,
    `${t.task}: ${session.task_name}`,
    <>
      <p class="meta">{`${chatLabel(t, { ...session.chat, agent: session.agent })}${session.repo_path ? ` · ${session.repo_path}` : ""} · ${counted(c.var.locale, "messages", history.total)}`}</p>
      {ephemeralCount > 0 || session.state.completion_pending ? (
        <div class="card" id="done">
          <p>{t.done}</p>
          <div class="actions">
            <PostButton action={`/ui/sessions/${session.id}/done`} csrf={csrf} label={t.yes} fields={{ answer: "yes" }} />
            <PostButton action={`/ui/sessions/${session.id}/done`} csrf={csrf} label={t.no} kind="secondary" fields={{ answer: "no" }} />
          </div>
        </div>
      ) : null}
      {history.messages.length === 0 ? <p>{t.nothing}</p> : null}
      {history.messages.map((m) => (
        <article class={m.ephemeral ? "card msg ephemeral" : "card msg"}>
          <div class="meta">
            <span class="badge">{label(t, "role", m.role)}</span>
            {m.tool ? <span class="badge">{m.tool}</span> : null}
            {m.ephemeral ? <span class="badge eph">{t.ephemeral}</span> : null}
            {shortTime(m.created_at)}
          </div>
          <pre style="border:0;padding:.3rem 0 0;background:transparent">{m.content}</pre>
        </article>
      ))}
    </>,
  );
});

sessionPages.post("/sessions/:id/done", async (c) => {
  const answer = await formText(c, "answer");
  if (answer !== "yes" && answer !== "no") throw invalid("answer: yes or no");
  const result = await completeSession(c.var.mindContext, c.req.param("id"), answer === "yes");
  const ok = result.confirmed ? "cleared" : "kept";
  return c.redirect(`/ui/sessions/${c.req.param("id")}?ok=${ok}`, 303);
});
