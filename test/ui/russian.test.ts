import { describe, expect, it } from "vitest";
import { recordUsage } from "../../src/llm/ledger";
import { DICTIONARIES } from "../../src/ui/i18n";
import { type CountedPhrase, counted } from "../../src/ui/labels";
import { call, newKey, newTenant } from "../helpers";
import { append, openSession } from "../sessions/session-helpers";
import { depsOfMind } from "../support/deps";
import { browser } from "./ui-helpers";

/** The text a person reads on a page: no tags, styles or attribute values. */
function visibleText(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Every English string of the UI that Russian says differently, as a whole-word pattern. */
function englishCatalogue(): { text: string; pattern: RegExp }[] {
  const en = DICTIONARIES.en;
  const ru = DICTIONARIES.ru;
  const texts = new Set<string>();
  for (const [key, value] of Object.entries(en)) if (value !== ru[key as keyof typeof ru]) texts.add(value);
  const phrases: CountedPhrase[] = ["memories", "notes-waiting", "messages", "lines-added", "lines-removed"];
  for (const id of phrases) for (const n of [1, 2, 5]) texts.add(counted("en", id, n).replace(/^\d+ /, ""));
  return [...texts].map((text) => ({ text, pattern: new RegExp(`(^|[^\\p{L}])${escape(text)}($|[^\\p{L}])`, "u") }));
}

describe("the web UI in Russian", () => {
  it("shows no string of the English catalogue on any page", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    const coder = await newKey(t.token, t.mind.id, "coder");
    const memory = (
      await call("POST", "/memory", { token: coder.key, body: { category: "preference", key: "coffee_order", content: "Любит кофе без сахара", tags: ["кофе"], priority: "high" } })
    ).json;
    await call("POST", "/memory", { ...auth, body: { category: "identity", key: "home_city", content: "Живёт в Тбилиси" } });
    await call("PUT", `/memory/${memory.id}`, { ...auth, body: { content: "Любит кофе с молоком" } });
    await call("POST", `/memory/${memory.id}/verify`, auth);
    await call("POST", "/notes", { token: coder.key, body: { text: "Запускает тесты перед пушем", category_hint: "techniques" } });
    await call("POST", "/notes", { ...auth, body: { text: "Предпочитает зелёный чай", category_hint: "preference" } });
    await call("PUT", "/cold", { ...auth, body: { text: "## Предпочтения\n- чай", version: 0 } });
    await call("PUT", "/cold", { ...auth, body: { text: "## Предпочтения\n- зелёный чай", version: 1 } });
    await call("POST", "/cold/rollback", { ...auth, body: { version: 1 } });
    const session = await openSession(auth, { task_name: "выкатка", repo_path: "/srv/app" });
    await append(auth, session.id, { content: "Выкати воркер" });
    await append(auth, session.id, { role: "tool", content: "42 файла загружено", ephemeral: true, tool: "shell" });
    await append(auth, session.id, { role: "assistant", content: "Готово." });
    for (const purpose of ["chat", "extraction", "consolidation"] as const) {
      await recordUsage(await depsOfMind(t.mind.id), { mindId: t.mind.id }, purpose, { inputTokens: 10, outputTokens: 5 }, false);
    }

    const b = browser({ "Accept-Language": "ru-RU,ru;q=0.9" });
    const login = await b.get("/ui/login");
    expect((await b.post("/ui/login", { jwt: t.token })).status).toBe(303);
    const paths = [
      "/ui/memories",
      "/ui/memories?verified=false",
      `/ui/memories/${memory.id}`,
      "/ui/notes",
      "/ui/notes?agent=coder",
      "/ui/cold",
      "/ui/cold?agent=coder",
      "/ui/cold/diff?from=1&to=2",
      "/ui/sessions",
      `/ui/sessions/${session.id}`,
      "/ui/usage",
      "/ui/data",
      "/ui/minds",
      "/ui/keys",
      "/ui/settings",
      "/ui/apps",
      "/",
    ];
    const catalogue = englishCatalogue();
    expect(catalogue.length).toBeGreaterThan(100);
    const found: string[] = [];
    const pages = [{ path: "/ui/login", text: visibleText(login.text) }];
    for (const path of paths) {
      const res = await b.get(path);
      expect(res.status, path).toBe(200);
      expect(res.text, path).toContain('lang="ru"');
      pages.push({ path, text: visibleText(res.text) });
    }
    for (const page of pages) {
      for (const { text, pattern } of catalogue) if (pattern.test(page.text)) found.push(`${page.path}: "${text}"`);
    }
    expect(found).toEqual([]);
    const notes = pages.find((p) => p.path === "/ui/notes")!.text;
    expect(notes).toContain("2 заметки ждут следующей консолидации");
    expect(pages.find((p) => p.path === "/ui/memories")!.text).toContain("2 воспоминания");
  });

  it("names the default agent namespace in Russian, other namespaces by their name", async () => {
    const t = await newTenant();
    const auth = { token: t.token, mind: t.mind.id };
    await call("PUT", "/cold", { ...auth, body: { text: "## Профиль\n- инженер", version: 0 } });
    const coder = await newKey(t.token, t.mind.id, "coder");
    await call("POST", "/notes", { token: coder.key, body: { text: "Любит тесты" } });
    await openSession(auth, { task_name: "выкатка" });
    const b = browser({ "Accept-Language": "ru" });
    await b.post("/ui/login", { jwt: t.token });
    for (const path of ["/ui/cold", "/ui/notes", "/ui/sessions"]) {
      const text = visibleText((await b.get(path)).text);
      expect(text, path).toMatch(/Пространство агента:( все)? основное/);
      expect(text, path).not.toMatch(/\bdefault\b/);
    }
    expect(visibleText((await b.get("/ui/notes")).text)).toContain("coder");
  });

  it("counts in Russian with its plural forms", () => {
    expect([1, 2, 5, 21, 22, 25].map((n) => counted("ru", "notes-waiting", n).split(" ").slice(0, 2).join(" "))).toEqual([
      "1 заметка", "2 заметки", "5 заметок", "21 заметка", "22 заметки", "25 заметок",
    ]);
    expect(counted("en", "memories", 1)).toBe("one memory");
  });
});
