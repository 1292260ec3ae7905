import { describe, expect, it } from "vitest";
import { call, newTenant } from "../helpers";
import { browser, csrfOf } from "./ui-helpers";

async function signedIn(language = "en") {
  const t = await newTenant();
  const b = browser({ "Accept-Language": language });
  expect((await b.post("/ui/login", { jwt: t.token })).status).toBe(303);
  return { b, token: t.token, mindId: t.mind.id };
}

const FORM = {
  locale: "en", retention_hours: "", daily_token_budget: "", max_memories: "100000", max_notes: "100000", max_bytes: "268435456",
  history_cap: "200", llm_window: "12", extract_every: "20", ephemeral_ttl: "3",
};

describe("the mind settings page", () => {
  it("shows the mind's settings and saves them as PATCH /minds/:id does", async () => {
    const { b, token, mindId } = await signedIn();
    const form = await b.get("/ui/settings");
    expect(form.status).toBe(200);
    expect(form.text).toContain('id="llm_window" name="llm_window" value="12"');
    const res = await b.post("/ui/settings", {
      ...FORM, _csrf: csrfOf(form.text), locale: "ru", retention_hours: "720", daily_token_budget: "50000", max_notes: "500",
      history_cap: "300", llm_window: "20", extract_every: "10", ephemeral_ttl: "5",
    });
    expect(res.status).toBe(303);
    const mind = (await call("GET", `/minds/${mindId}`, { token })).json;
    expect(mind).toMatchObject({ locale: "ru", retention_hours: 720 });
    expect(mind.settings).toMatchObject({ daily_token_budget: 50000, max_notes: 500, history_cap: 300, llm_window: 20, extract_every: 10, ephemeral_ttl: 5 });
    const shown = await b.get("/ui/settings?ok=saved");
    expect(shown.text).toContain('id="retention_hours" name="retention_hours" value="720"');
    // Empty clears what may be none.
    await b.post("/ui/settings", { ...FORM, _csrf: csrfOf(shown.text) });
    expect((await call("GET", `/minds/${mindId}`, { token })).json).toMatchObject({ retention_hours: null, settings: { daily_token_budget: null } });
  });

  it("shows each refused field's error on the form, keeps what was typed and changes nothing", async () => {
    const { b, token, mindId } = await signedIn("ru");
    const form = await b.get("/ui/settings");
    const res = await b.post("/ui/settings", { ...FORM, _csrf: csrfOf(form.text), ephemeral_ttl: "9", llm_window: "много", history_cap: "250" });
    expect(res.status).toBe(400);
    expect(res.text).toContain("Не сохранено: проверьте отмеченные поля.");
    expect(res.text).toContain('data-field="ephemeral_ttl">Целое число от 3 до 5.');
    expect(res.text).toContain('data-field="llm_window">Целое число от 1 до 100.');
    expect(res.text).not.toContain('data-field="history_cap"');
    expect(res.text).toContain('name="llm_window" value="много"');
    expect(res.text).toContain('name="history_cap" value="250"');
    expect((await call("GET", `/minds/${mindId}`, { token })).json.settings).toMatchObject({ ephemeral_ttl: 3, llm_window: 12, history_cap: 200 });
  });

  it("refuses a post without the session's CSRF token", async () => {
    const { b, token, mindId } = await signedIn();
    expect((await b.post("/ui/settings", { ...FORM, history_cap: "999" })).status).toBe(403);
    expect((await call("GET", `/minds/${mindId}`, { token })).json.settings.history_cap).toBe(200);
  });
});
