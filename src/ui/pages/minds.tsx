import { Hono } from "hono";
import { invalid } from "../../errors";
import { createMind, getMind, listMinds } from "../../tenancy/minds";
import { CsrfField, PostButton } from "../layout";
import { formText, page } from "../render";
import { switchUiMind } from "../session";
import type { UiEnv } from "../ui-env";

// Which mind the UI works in: the account's minds, switching between them, creating one.

export const mindPages = new Hono<UiEnv>();

mindPages.get("/minds", async (c) => {
  const { t, deps, session, csrf } = c.var;
  const minds = await listMinds(deps, session.accountId);
  return page(
    c,
    t.minds,
    <>
      {session.mindId === null ? <p>{t.noMind}</p> : null}
      {minds.map((m) => (
        <div class="card">
          <h3>{m.name}</h3>
          <div class="meta">{`${m.id} · ${m.locale}`}</div>
          <div class="actions">
            {m.id === session.mindId ? (
              <span class="badge ok">{t.current}</span>
            ) : (
              <PostButton action="/ui/minds/switch" csrf={csrf} label={t.switchMind} fields={{ mind: m.id }} />
            )}
          </div>
        </div>
      ))}
      <form method="post" action="/ui/minds" class="card">
        <h2>{t.createMind}</h2>
        <CsrfField token={csrf} />
        <label for="name">{t.name}</label>
        <input id="name" name="name" required maxlength={100} />
        <div class="actions"><button type="submit">{t.create}</button></div>
      </form>
    </>,
    { mindName: minds.find((m) => m.id === session.mindId)?.name },
  );
});

mindPages.post("/minds/switch", async (c) => {
  const { deps, session } = c.var;
  const mind = await getMind(deps, session.accountId, await formText(c, "mind"));
  await switchUiMind(c, session, mind.id);
  return c.redirect("/ui/memories", 303);
});

mindPages.post("/minds", async (c) => {
  const { deps, session, locale } = c.var;
  const name = (await formText(c, "name")).trim();
  if (!name || name.length > 100) throw invalid("name: 1 to 100 characters");
  const mind = await createMind(deps, session.accountId, { name, locale });
  await switchUiMind(c, session, mind.id);
  return c.redirect("/ui/memories", 303);
});
