import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { createLoginLink } from "../../src/auth/login-links";
import { call, newKey, newTenant, store } from "../helpers";
import { append, openSession } from "../sessions/session-helpers";
import { manualClock, testDeps } from "../support/deps";
import { browser, csrfOf } from "./ui-helpers";

async function signedIn(locale = "en") {
  const t = await newTenant();
  const b = browser({ "Accept-Language": locale });
  const res = await b.post("/ui/login", { jwt: t.token });
  expect(res.status).toBe(303);
  return { ...t, auth: { token: t.token, mind: t.mind.id }, b };
}

describe("UI login", () => {
  it("a one-time link shows a confirmation first; only its POST redeems it, once", async () => {
    const t = await newTenant();
    const { token } = await createLoginLink(testDeps(), { accountId: t.accountId, mindId: t.mind.id });
    const b = browser();
    const preview = await b.get(`/ui/login?token=${token}`);
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('name="token"');
    expect((await b.get(`/ui/login?token=${token}`)).status).toBe(200);
    const login = await b.post("/ui/login", { token });
    expect(login.status).toBe(303);
    expect(login.headers.get("Location")).toBe("/ui/memories");
    const cookie = login.setCookies.find((c) => c.startsWith("edgemind_ui="))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/ui/);
    // Served over HTTPS: Secure (plain HTTP on loopback is test/ui/newcomer.test.ts's).
    expect(cookie).toMatch(/Secure/);
    expect((await b.get("/ui/memories")).status).toBe(200);
    const reuse = await browser().post("/ui/login", { token });
    expect(reuse.status).toBe(401);
    expect(reuse.text).toContain("invalid, used or expired");
  });

  it("an expired link's page says how to get a new one for any account: /login in the bot, or POST /minds/:id/login-link", async () => {
    const t = await newTenant();
    const past = manualClock(new Date(Date.now() - 11 * 60 * 1000));
    const { token } = await createLoginLink(testDeps({ clock: past }), { accountId: t.accountId, mindId: t.mind.id });
    for (const [language, words] of [["en", "Get a new one with /login"], ["ru", "Новую даст команда /login"]] as const) {
      const page = await browser({ "Accept-Language": language }).post("/ui/login", { token });
      expect(page.status).toBe(401);
      expect(page.text).toContain(words);
      expect(page.text).toContain("POST /minds/:id/login-link");
    }
  });

  it("a login continuing to an address that is not a clean page of this site goes to its own page instead", async () => {
    const t = await newTenant();
    for (const next of ["/ui/oauth/authorize?\r\nX:1", "/ui/oauth/authorize?a b", "/ui/oauth/authorize?\u00e9", "/ui/oauth/authorize?\u2028"]) {
      const { token } = await createLoginLink(testDeps(), { accountId: t.accountId, mindId: t.mind.id });
      const b = browser();
      expect((await b.get(`/ui/login?${new URLSearchParams({ token, next })}`)).text).not.toContain('name="next"');
      const login = await b.post("/ui/login", { token, next });
      expect(login.status).toBe(303);
      expect(login.headers.get("Location")).toBe("/ui/memories");
      expect((await b.get("/ui/memories")).status).toBe(200);
    }
  });

  it("marks the cookie Secure when ENVIRONMENT=production", async () => {
    const t = await newTenant();
    const res = await createApp().request(
      "https://edgemind.test/ui/login",
      {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://edgemind.test" },
        body: new URLSearchParams({ jwt: t.token }),
      },
      { ...env, ENVIRONMENT: "production" },
    );
    expect(res.status).toBe(303);
    expect(res.headers.get("Set-Cookie")).toMatch(/edgemind_ui=.*; Secure/);
  });

  it("refuses a bad JWT, a forged cookie, and pages without a session", async () => {
    expect((await browser().post("/ui/login", { jwt: "not.a.jwt" })).status).toBe(401);
    expect((await browser().get("/ui/memories")).headers.get("Location")).toBe("/ui/login");
    const forged = browser({ Cookie: "edgemind_ui=eyJhY2NvdW50SWQiOiJ4In0.AAAA" });
    expect((await forged.get("/ui/memories")).headers.get("Location")).toBe("/ui/login");
  });

  it("logs out, and the old cookie no longer opens anything", async () => {
    const { b } = await signedIn();
    const cookie = b.jar.get("edgemind_ui")!;
    expect((await b.post("/ui/logout", {})).status).toBe(303);
    expect((await b.get("/ui/memories")).status).toBe(303);
    const replay = browser({ Cookie: `edgemind_ui=${cookie}` });
    expect((await replay.get("/ui/memories")).headers.get("Location")).toBe("/ui/login");
  });

  it("logging out everywhere ends the account's other logins, and only its own", async () => {
    const { b, token } = await signedIn();
    const other = browser();
    expect((await other.post("/ui/login", { jwt: token })).status).toBe(303);
    const stranger = await signedIn();
    expect((await other.get("/ui/memories")).status).toBe(200);
    expect((await b.post("/ui/logout", { everywhere: "1" })).status).toBe(303);
    expect((await other.get("/ui/memories")).headers.get("Location")).toBe("/ui/login");
    expect((await b.get("/ui/memories")).headers.get("Location")).toBe("/ui/login");
    expect((await stranger.b.get("/ui/memories")).status).toBe(200);
  });
});

describe("UI forms are CSRF-safe", () => {
  it("refuses a post without the page's token, and a cross-site post", async () => {
    const { b, auth } = await signedIn();
    const m = await store(auth, { key: "kept", content: "still here" });
    expect((await b.post(`/ui/memories/${m.id}/delete`, {})).status).toBe(403);
    const token = csrfOf((await b.get("/ui/memories")).text);
    expect((await b.post(`/ui/memories/${m.id}/delete`, { _csrf: token }, { Origin: "https://evil.example" })).status).toBe(403);
    expect((await call("GET", `/memory/${m.id}`, auth)).status).toBe(200);
    expect((await b.post(`/ui/memories/${m.id}/delete`, { _csrf: token })).status).toBe(303);
    expect((await call("GET", `/memory/${m.id}`, auth)).status).toBe(404);
  });
});

describe("UI pages", () => {
  it("lists, searches and filters memory cards; verifies and edits one; shows its history", async () => {
    const { b, auth, token, mind } = await signedIn();
    const { key } = await newKey(token, mind.id);
    const coffee = await store({ token: key }, { category: "preference", key: "coffee_order", content: "Любит кофе без сахара", tags: ["coffee"] });
    await store(auth, { category: "fact", key: "home_city", content: "Lives in Tbilisi" });
    const all = await b.get("/ui/memories");
    expect(all.text).toContain("coffee_order");
    expect(all.text).toContain("home_city");
    const found = await b.get(`/ui/memories?q=${encodeURIComponent("кофе")}`);
    expect(found.text).toContain("coffee_order");
    expect(found.text).not.toContain("home_city");
    const unverified = await b.get("/ui/memories?verified=false&source=agent");
    expect(unverified.text).toContain("coffee_order");
    expect(unverified.text).not.toContain("home_city");
    expect((await b.get("/ui/memories?category=fact")).text).not.toContain("coffee_order");

    const csrf = csrfOf(all.text);
    expect((await b.post(`/ui/memories/${coffee.id}/verify`, { _csrf: csrf })).status).toBe(303);
    expect((await call("GET", `/memory/${coffee.id}`, auth)).json.verified).toBe(true);
    const edited = await b.post(`/ui/memories/${coffee.id}`, { _csrf: csrf, content: "Любит кофе с молоком", tags: "coffee, milk", priority: "high" });
    expect(edited.headers.get("Location")).toBe(`/ui/memories/${coffee.id}?ok=saved`);
    expect((await call("GET", `/memory/${coffee.id}`, auth)).json).toMatchObject({ content: "Любит кофе с молоком", tags: ["coffee", "milk"], priority: "high" });
    const detail = await b.get(`/ui/memories/${coffee.id}?ok=saved`);
    expect(detail.text).toContain("Saved.");
    expect(detail.text).toMatch(/<td>verified<\/td>[\s\S]*<td>changed<ul class="changes">[\s\S]*Priority: normal → high/);
    expect(detail.text).toContain("<td>you</td>");
    const bad = await b.post(`/ui/memories/${coffee.id}`, { _csrf: csrf, content: "" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("content: Too small");
  });

  it("shows pending notes, cold versions, a diff and rolls back", async () => {
    const { b, auth } = await signedIn();
    await call("POST", "/notes", { ...auth, body: { text: "Prefers green tea" } });
    await call("PUT", "/cold", { ...auth, body: { text: "## About\n- likes tea", version: 0 } });
    await call("PUT", "/cold", { ...auth, body: { text: "## About\n- likes green tea", version: 1 } });
    expect((await b.get("/ui/notes")).text).toContain("Prefers green tea");
    const cold = await b.get("/ui/cold");
    expect(cold.text).toContain("- likes green tea");
    const diff = await b.get("/ui/cold/diff?from=1&to=2");
    expect(diff.text).toContain('<span class="del">-- likes tea');
    expect(diff.text).toContain('<span class="add">+- likes green tea');
    const rolled = await b.post("/ui/cold/rollback", { _csrf: csrfOf(cold.text), version: "1", agent: "default" });
    expect(rolled.headers.get("Location")).toBe("/ui/cold?ok=rolledBack");
    expect((await call("GET", "/cold", auth)).json).toMatchObject({ text: "## About\n- likes tea", version: 3 });
  });

  it("shows each chat's sessions with the full history, ephemeral marked, and answers Done", async () => {
    const { b, auth } = await signedIn();
    const session = await openSession(auth, { task_name: "deploy" });
    await append(auth, session.id, { content: "Deploy it" });
    await append(auth, session.id, { role: "tool", content: "build log 42", ephemeral: true, tool: "shell" });
    const list = await b.get("/ui/sessions");
    expect(list.text).toContain(`/ui/sessions/${session.id}`);
    const page = await b.get(`/ui/sessions/${session.id}`);
    expect(page.text).toMatch(/class="card msg ephemeral"[\s\S]*build log 42/);
    expect(page.text).toContain('id="done"');
    const no = await b.post(`/ui/sessions/${session.id}/done`, { _csrf: csrfOf(page.text), answer: "no" });
    expect(no.headers.get("Location")).toContain("ok=kept");
    expect((await call("GET", `/sessions/${session.id}/messages?channel=ui`, auth)).json.messages).toHaveLength(2);
    await b.post(`/ui/sessions/${session.id}/done`, { _csrf: csrfOf(page.text), answer: "yes" });
    expect((await call("GET", `/sessions/${session.id}/messages?channel=ui`, auth)).json.messages).toHaveLength(1);
  });

  it("shows usage and job runs", async () => {
    const { b } = await signedIn();
    const res = await b.get("/ui/usage");
    expect(res.status).toBe(200);
    expect(res.text).toContain("Tokens used today: 0");
  });

  it("exports, imports into an empty mind, and erases with a receipt", async () => {
    const { b, auth, token } = await signedIn();
    await store(auth, { key: "exported_fact", content: "Travels by train" });
    const exported = await b.get("/ui/export");
    expect(exported.headers.get("Content-Disposition")).toMatch(/attachment/);
    expect(exported.text.split("\n")[1]).toContain("exported_fact");

    const data = await b.get("/ui/data");
    const refused = new FormData();
    refused.set("_csrf", csrfOf(data.text));
    refused.set("archive", new File([exported.text], "mind.jsonl"));
    const conflict = await b.postForm("/ui/import", refused);
    expect(conflict.status).toBe(409);
    expect(conflict.text).toContain("not empty");

    const minds = await b.get("/ui/minds");
    await b.post("/ui/minds", { _csrf: csrfOf(minds.text), name: "restored" });
    const fresh = new FormData();
    fresh.set("_csrf", csrfOf(minds.text));
    fresh.set("archive", new File([exported.text], "mind.jsonl"));
    const posted = await b.postForm("/ui/import", fresh);
    expect(posted.status).toBe(303);
    expect(posted.headers.get("Location")).toMatch(/^\/ui\/import\/imp_/);
    const imported = await b.get(posted.headers.get("Location")!);
    expect(imported.status).toBe(200);
    expect(imported.text).toContain("Memories: 1");
    expect((await b.get("/ui/memories")).text).toContain("exported_fact");

    const wrong = await b.post("/ui/erase", { _csrf: csrfOf(minds.text), confirm: "not the name" });
    expect(wrong.status).toBe(400);
    const erased = await b.post("/ui/erase", { _csrf: csrfOf(minds.text), confirm: "restored" });
    expect(erased.status).toBe(200);
    expect(erased.text).toMatch(/<td>Memories<\/td><td>1<\/td>/);
    expect((await b.get("/ui/memories")).headers.get("Location")).toBe("/ui/minds");
    const left = await call("GET", "/minds", { token });
    expect(left.json.minds.map((m: { name: string }) => m.name)).not.toContain("restored");
  });

  it("imports a mem0 export chosen as such, and a memory's history says it was imported and how it was filed", async () => {
    const { b } = await signedIn();
    const minds = await b.get("/ui/minds");
    await b.post("/ui/minds", { _csrf: csrfOf(minds.text), name: "from mem0" });
    const data = await b.get("/ui/data");
    expect(data.text).toContain('<option value="mem0">a mem0 export (.json)</option>');
    const form = new FormData();
    form.set("_csrf", csrfOf(data.text));
    form.set("format", "mem0");
    form.set("archive", new File([JSON.stringify({ results: [{ id: "m-1", memory: "I prefer green tea", user_id: "alice", created_at: "2026-01-02T03:04:05Z" }] })], "mem0.json"));
    const posted = await b.postForm("/ui/import", form);
    expect(posted.status).toBe(303);
    expect((await b.get(posted.headers.get("Location")!)).text).toContain("Memories: 1");
    const list = await b.get("/ui/memories");
    const id = /href="\/ui\/memories\/(mem_[0-9a-z]+)"/.exec(list.text)![1];
    const memory = await b.get(`/ui/memories/${id}`);
    expect(memory.text).toContain("import from mem0");
    expect(memory.text).toContain("imported");
    expect(memory.text).toContain('<li data-field="category">Category: — → preference</li>');
  });

  it("speaks Russian by Accept-Language or the switch, and is readable on a phone", async () => {
    const { b } = await signedIn("ru-RU,ru;q=0.9,en;q=0.5");
    const ru = await b.get("/ui/memories");
    expect(ru.text).toContain('<html lang="ru">');
    expect(ru.text).toContain("Память");
    expect(ru.text).toContain('name="viewport"');
    expect(ru.text).not.toMatch(/<link|<script|https?:\/\/(?!web\.telegram)/);
    const en = await b.get("/ui/memories?lang=en");
    expect(en.text).toContain('<html lang="en">');
    expect((await b.get("/ui/notes")).text).toContain("Pending notes");
  });

  it("never shows another tenant's memory", async () => {
    const owner = await newTenant();
    const m = await store({ token: owner.token, mind: owner.mind.id }, { key: "private_fact", content: "secret" });
    const { b } = await signedIn();
    const res = await b.get(`/ui/memories/${m.id}`);
    expect(res.status).toBe(404);
    expect(res.text).not.toContain("secret");
    const token = csrfOf((await b.get("/ui/memories")).text);
    expect((await b.post(`/ui/memories/${m.id}/verify`, { _csrf: token })).status).toBe(404);
  });
});
