import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { DICTIONARIES } from "../../src/ui/i18n";
import { call, newKey, newTenant, store, unique } from "../helpers";
import { openSession } from "../sessions/session-helpers";
import { browser, csrfOf } from "./ui-helpers";

async function signedIn(locale = "en") {
  const t = await newTenant();
  const b = browser({ "Accept-Language": locale });
  expect((await b.post("/ui/login", { jwt: t.token })).status).toBe(303);
  return { ...t, auth: { token: t.token, mind: t.mind.id }, b };
}

const RAW_TABLES = ["memory_history", "note_extractions", "llm_usage", "oauth_grants", "cold_versions", "mind_usage", "login_links"];
const brandOf = (html: string) => /<a class="brand" href="\/ui">([^<]*)<\/a>/.exec(html)?.[1] ?? "";

/** A login as a browser sends it, to a Worker reached at `origin`. */
async function loginCookie(origin: string, token: string, environment?: string) {
  const res = await createApp().request(
    `${origin}/ui/login`,
    { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: origin }, body: new URLSearchParams({ jwt: token }) },
    { ...env, ...(environment ? { ENVIRONMENT: environment } : {}) },
  );
  expect(res.status).toBe(303);
  return res.headers.get("Set-Cookie") ?? "";
}

describe("every page of the web UI", () => {
  it("starts with <!DOCTYPE html>, signed in or not", async () => {
    const { b } = await signedIn();
    const pages = ["/ui/memories", "/ui/notes", "/ui/cold", "/ui/sessions", "/ui/usage", "/ui/data", "/ui/apps", "/ui/keys", "/ui/webhooks", "/ui/minds"];
    for (const path of pages) {
      const res = await b.get(path);
      expect(res.status, path).toBe(200);
      expect(res.text.startsWith("<!DOCTYPE html><html"), path).toBe(true);
    }
    expect((await browser().get("/ui/login")).text.startsWith("<!DOCTYPE html>")).toBe(true);
    expect((await call("GET", "/")).text.startsWith("<!DOCTYPE html>")).toBe(true);
  });

  it("/favicon.ico is answered without a 404", async () => {
    const res = await call("GET", "/favicon.ico");
    expect(res.status).toBe(204);
    expect(res.headers.get("Cache-Control")).toContain("max-age");
  });
});

describe("the login cookie", () => {
  it("is Secure over HTTPS and on any host but this machine, not over plain HTTP on loopback", async () => {
    const t = await newTenant();
    expect(await loginCookie("https://edgemind.example", t.token)).toMatch(/edgemind_ui=.*; Secure/);
    expect(await loginCookie("http://edgemind.example", t.token)).toMatch(/; Secure/);
    expect(await loginCookie("http://127.0.0.1:8787", t.token)).not.toMatch(/Secure/);
    expect(await loginCookie("http://localhost:8787", t.token)).not.toMatch(/Secure/);
    expect(await loginCookie("http://127.0.0.1:8787", t.token, "production")).toMatch(/; Secure/);
  });

  it("a one-time link made through the API opens the UI in that mind, once", async () => {
    const t = await newTenant();
    const made = await call("POST", `/minds/${t.mind.id}/login-link`, { token: t.token });
    expect(made.status).toBe(201);
    const url = new URL(made.json.url);
    expect(url.pathname).toBe("/ui/login");
    const b = browser();
    expect((await b.post("/ui/login", { token: url.searchParams.get("token")! })).status).toBe(303);
    expect(brandOf((await b.get("/ui/memories")).text)).toContain(t.mind.name);
    expect((await browser().post("/ui/login", { token: url.searchParams.get("token")! })).status).toBe(401);
    const stranger = await newTenant();
    expect((await call("POST", `/minds/${t.mind.id}/login-link`, { token: stranger.token })).status).toBe(404);
  });
});

describe("memory cards", () => {
  it("show a memory's content once", async () => {
    const { b, auth } = await signedIn();
    const content = `Prefers the window seat on long flights ${unique("x")}`;
    await store(auth, { key: "seat", content });
    const html = (await b.get("/ui/memories")).text;
    expect(html.split(content)).toHaveLength(2);
  });
});

describe("data: import and erase", () => {
  it("say what was imported and erased in a person's words, in English and Russian, and stop offering an import into a full mind", async () => {
    for (const locale of ["en", "ru"] as const) {
      const t = DICTIONARIES[locale];
      const { b, auth } = await signedIn(locale);
      await store(auth, { key: "exported_fact", content: "Travels by train" });
      const archive = (await b.get("/ui/export")).text;
      const full = await b.get("/ui/data");
      expect(full.text).not.toContain('action="/ui/import"');
      expect(full.text).toContain(t.importNotEmpty);

      const minds = await b.get("/ui/minds");
      const name = unique("restored");
      await b.post("/ui/minds", { _csrf: csrfOf(minds.text), name });
      expect((await b.get("/ui/data")).text).toContain('action="/ui/import"');
      const form = new FormData();
      form.set("_csrf", csrfOf(minds.text));
      form.set("archive", new File([archive], "mind.jsonl"));
      const imported = await b.get((await b.postForm("/ui/import", form)).headers.get("Location")!);
      expect(imported.text).toContain(`${t.imported}: ${t.table_memories}: 1, ${t.table_memory_history}: 1`);
      for (const raw of RAW_TABLES) expect(imported.text).not.toContain(raw);
      expect(imported.text).not.toContain('action="/ui/import"');
      expect(imported.text).toContain('id="import-not-empty"');

      expect(brandOf(imported.text)).toContain(name);
      const erased = await b.post("/ui/erase", { _csrf: csrfOf(minds.text), confirm: name });
      expect(erased.status).toBe(200);
      expect(erased.text).toContain(`<td>${t.table_memories}</td><td>1</td>`);
      expect(erased.text).toContain(`<td>${t.table_minds}</td><td>1</td>`);
      for (const raw of RAW_TABLES) expect(erased.text).not.toContain(raw);
      expect(brandOf(erased.text)).toBe("edgemind");
    }
  });
});

describe("mind keys in the UI", () => {
  it("are made (shown once) and revoked with the page's CSRF token, and work as the API's keys do", async () => {
    const { b, auth } = await signedIn();
    const page = await b.get("/ui/keys");
    expect(page.text).toContain(DICTIONARIES.en.noKeys);
    expect((await b.post("/ui/keys", { agent: "coder" })).status).toBe(403);
    expect((await b.post("/ui/keys", { _csrf: csrfOf(page.text), agent: "Not A Name" })).status).toBe(400);

    const made = await b.post("/ui/keys", { _csrf: csrfOf(page.text), agent: "coder" });
    expect(made.status).toBe(200);
    const key = /<pre>(emk_[^<]+)<\/pre>/.exec(made.text)![1]!;
    const written = await store({ token: key }, { key: "from_ui_key", content: "Written with a key made in the UI" });
    expect(written).toMatchObject({ agent: "coder", source: "agent" });
    const listed = await call("GET", `/minds/${auth.mind}/keys`, { token: auth.token });
    expect(listed.json.keys).toMatchObject([{ agent: "coder", revoked_at: null }]);
    const again = await b.get("/ui/keys");
    expect(again.text).toContain(listed.json.keys[0].prefix);
    expect(again.text).not.toContain(key);

    const revoked = await b.post("/ui/keys/revoke", { _csrf: csrfOf(again.text), key: listed.json.keys[0].id });
    expect(revoked.headers.get("Location")).toBe("/ui/keys?ok=keyRevoked");
    expect((await call("GET", "/memory", { token: key })).status).toBe(401);
    const other = await newTenant();
    const theirs = await newKey(other.token, other.mind.id);
    expect((await b.post("/ui/keys/revoke", { _csrf: csrfOf(again.text), key: theirs.id })).status).toBe(404);
    expect((await call("GET", "/memory", { token: theirs.key })).status).toBe(200);
  });
});

describe("named mind keys in the UI", () => {
  it("are made with the name typed, and the list shows each key's name or says it has none", async () => {
    const { b, auth } = await signedIn();
    await newKey(auth.token, auth.mind);
    const page = await b.get("/ui/keys");
    const made = await b.post("/ui/keys", { _csrf: csrfOf(page.text), name: "CI runner", agent: "" });
    expect(made.status).toBe(200);
    expect(made.text).toContain("CI runner: ");
    const listed = (await call("GET", `/minds/${auth.mind}/keys`, { token: auth.token })).json.keys;
    expect(listed.map((k: { name: string | null }) => k.name).sort()).toEqual(["CI runner", null]);
    const names = [...(await b.get("/ui/keys")).text.matchAll(/<div class="card key"[^>]*><h3>([^<]*)<\/h3>/g)].map((m) => m[1]);
    expect(names.sort()).toEqual(["CI runner", DICTIONARIES.en.keyUnnamed]);
    expect((await b.post("/ui/keys", { _csrf: csrfOf(page.text), name: "x".repeat(81) })).status).toBe(400);
  });
});

describe("sessions and apps", () => {
  it("label an API chat of namespace coder as such, and Telegram chats as Telegram's", async () => {
    const { b, auth } = await signedIn();
    const { key } = await newKey(auth.token, auth.mind, "coder");
    await openSession({ token: key, mind: auth.mind }, { task_name: "refactor" });
    const html = (await b.get("/ui/sessions")).text;
    expect(html).toContain("API chat “default” · Agent namespace: coder");
    expect(html).not.toContain("api · default");
  });

  it("revoking an app says «хранилищем» in Russian, as every other page calls a mind", async () => {
    const { b } = await signedIn("ru");
    const html = (await b.get("/ui/apps?ok=revoked")).text;
    expect(html).toContain("больше не может работать с этим хранилищем");
    for (const text of Object.values(DICTIONARIES.ru)) expect(text).not.toMatch(/\bум(ом|а|у)?\b/u);
  });
});

/** A client registers, the person allows it on the consent page; the code is exchanged only if `exchange`. */
async function connectApp(b: ReturnType<typeof browser>, mindId: string, name: string, exchange: boolean, agent = "") {
  const redirect = "http://127.0.0.1:33418/callback";
  const registered = await call("POST", "/oauth/register", {
    body: { client_name: name, redirect_uris: [redirect], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none" },
  });
  expect(registered.status).toBe(201);
  const verifier = `${unique("verifier")}-${"v".repeat(40)}`;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const challenge = btoa(String.fromCharCode(...digest)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: registered.json.client_id,
    redirect_uri: redirect,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope: "mind",
    resource: "https://edgemind.test/mcp",
  });
  const consent = await b.get(`/ui/oauth/authorize?${query}`);
  expect(consent.status).toBe(200);
  const handle = /name="handle" value="([^"]+)"/.exec(consent.text)![1]!;
  const answer = await b.post("/ui/oauth/authorize", { _csrf: csrfOf(consent.text), handle, mind: mindId, agent, decision: "allow" });
  const code = new URL(answer.headers.get("Location")!).searchParams.get("code")!;
  if (exchange) {
    const token = await exports.default.fetch(
      new Request("https://edgemind.test/oauth/token", {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirect, client_id: registered.json.client_id, code_verifier: verifier, resource: "https://edgemind.test/mcp" }),
      }),
    );
    expect(token.status).toBe(200);
  }
  return consent.text;
}

describe("connecting apps", () => {
  it("the consent page offers the mind's namespaces and still takes a new one", async () => {
    const { b, auth } = await signedIn();
    const { key } = await newKey(auth.token, auth.mind, "coder");
    await store({ token: key }, { key: "lang", content: "Writes TypeScript" });
    const consent = await connectApp(b, auth.mind, unique("Assistant"), true, "brand_new");
    expect(consent).toContain('list="namespaces"');
    expect(consent).toMatch(/<datalist id="namespaces">.*<option value="default">.*<option value="coder">/s);
  });

  it("Apps lists an app once whatever its registrations, and leaves out grants whose code was never exchanged", async () => {
    const { b, auth } = await signedIn();
    const name = unique("Desk assistant");
    await connectApp(b, auth.mind, name, true);
    await connectApp(b, auth.mind, name, true);
    const abandoned = unique("Abandoned assistant");
    await connectApp(b, auth.mind, abandoned, false);
    const apps = (await b.get("/ui/apps")).text;
    expect(apps.split(`<h3>${name}</h3>`)).toHaveLength(2);
    expect(apps.match(/<li class="connection">/g)).toHaveLength(2);
    expect(apps).not.toContain(abandoned);
  });
});
