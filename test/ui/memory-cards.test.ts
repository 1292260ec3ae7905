import { describe, expect, it } from "vitest";
import { call, newTenant, store } from "../helpers";
import { browser, csrfOf } from "./ui-helpers";

async function signedIn(language: string) {
  const t = await newTenant();
  const b = browser({ "Accept-Language": language });
  expect((await b.post("/ui/login", { jwt: t.token })).status).toBe(303);
  return { b, auth: { token: t.token, mind: t.mind.id } };
}

const cardOf = (html: string, key: string) => new RegExp(`<article class="card memory" data-key="${key}">[\\s\\S]*?</article>`).exec(html)?.[0] ?? "";

describe("a memory card", () => {
  it("shows when the memory expires, in the reader's language", async () => {
    const { b, auth } = await signedIn("ru");
    await store(auth, { category: "context", key: "trip_dates", content: "В отпуске до мая", expires_at: "2031-05-05T14:00:00Z" });
    await store(auth, { category: "identity", key: "home_city", content: "Живёт в Тбилиси" });
    const html = (await b.get("/ui/memories")).text;
    expect(cardOf(html, "trip_dates")).toContain("Истекает: 5 мая 2031 г. в 14:00 UTC");
    expect(cardOf(html, "home_city")).not.toContain("expiry");
    const en = browser({ "Accept-Language": "en" });
    en.jar.set("edgemind_ui", b.jar.get("edgemind_ui")!);
    expect(cardOf((await en.get("/ui/memories")).text, "trip_dates")).toContain("Expires: May 5, 2031 at 2:00 PM UTC");
  });

  it("says an expiry that has passed is past", async () => {
    const { b, auth } = await signedIn("en");
    const m = await store(auth, { category: "context", key: "old_plan", content: "Plan for last year", expires_at: "2031-01-01T00:00:00Z" });
    expect(cardOf((await b.get("/ui/memories")).text, "old_plan")).toContain("Expires: January 1, 2031");
    // The same memory moved into the past reads as expired.
    await call("PUT", `/memory/${m.id}`, { ...auth, body: { expires_at: "2001-01-01T00:00:00Z" } });
    expect(cardOf((await b.get("/ui/memories")).text, "old_plan")).toContain("Expired: January 1, 2001");
  });
});

describe("a memory's history", () => {
  it("says which fields a change touched when the text stayed the same", async () => {
    const { b, auth } = await signedIn("en");
    const m = await store(auth, { category: "preference", key: "coffee_order", content: "Coffee without sugar", tags: ["coffee"] });
    const form = await b.get(`/ui/memories/${m.id}`);
    const saved = await b.post(`/ui/memories/${m.id}`, { _csrf: csrfOf(form.text), content: "Coffee without sugar", tags: "coffee, morning", priority: "high" });
    expect(saved.status).toBe(303);
    const history = (await call("GET", `/memory/${m.id}/history`, auth)).json.history;
    expect(history.at(-1)).toMatchObject({
      action: "update",
      old_content: "Coffee without sugar",
      new_content: "Coffee without sugar",
      changes: { priority: ["normal", "high"], tags: [["coffee"], ["coffee", "morning"]] },
    });
    expect(history[0].changes).toBeNull();
    const page = (await b.get(`/ui/memories/${m.id}`)).text;
    expect(page).toContain('<li data-field="priority">Priority: normal → high</li>');
    expect(page).toContain('<li data-field="tags">Tags: #coffee → #coffee #morning</li>');
  });

  it("records an agent's edit unverifying a person's memory, in the reader's language", async () => {
    const { b, auth } = await signedIn("ru");
    const m = await store(auth, { category: "fact", key: "office_floor", content: "Офис на третьем этаже" });
    const agent = await call("POST", `/minds/${auth.mind}/keys`, { token: auth.token, body: {} });
    await call("PUT", `/memory/${m.id}`, { token: agent.json.key, body: { expires_at: "2031-05-05T14:00:00Z" } });
    const page = (await b.get(`/ui/memories/${m.id}`)).text;
    expect(page).toContain('<li data-field="expires_at">Истекает: — → 5 мая 2031 г. в 14:00 UTC</li>');
    expect(page).toContain('<li data-field="verified">Проверка: Проверено → Не проверено</li>');
    expect(page).toContain('<li data-field="source">Источник: человек → агент</li>');
  });
});
