import { describe, expect, it } from "vitest";
import { call, newTenant, store } from "../helpers";
import { browser, csrfOf } from "./ui-helpers";

// A memory's page shows its timeline (what was stated, since when, and what replaced it), and a
// person can mark the memory as replacing another.

async function signedIn(language: string) {
  const t = await newTenant();
  const b = browser({ "Accept-Language": language });
  expect((await b.post("/ui/login", { jwt: t.token })).status).toBe(303);
  return { b, auth: { token: t.token, mind: t.mind.id } };
}

const timelineOf = (html: string) => /<section class="timeline">[\s\S]*?<\/section>/.exec(html)?.[0] ?? "";
const itemsOf = (html: string) => [...timelineOf(html).matchAll(/<li data-id="([^"]+)" class="(current|replaced)">/g)].map((m) => [m[1], m[2]]);

describe("a memory's timeline", () => {
  it("lists every statement of the memory, newest first, with when each was stated and until when it held", async () => {
    const { b, auth } = await signedIn("en");
    const m = await store(auth, { category: "preference", key: "coffee_order", content: "Orders a flat white", observed_at: "2023-05-21T10:00:00Z" });
    await store(auth, { category: "preference", key: "coffee_order", content: "Orders an oat latte", observed_at: "2023-06-03T09:30:00Z" });
    const html = (await b.get(`/ui/memories/${m.id}`)).text;
    const timeline = timelineOf(html);
    const items = itemsOf(html);
    expect(items.map(([, state]) => state)).toEqual(["current", "replaced"]);
    expect(items[0]![0]).toBe(m.id);
    expect(timeline).toContain("Orders an oat latte");
    expect(timeline).toContain("stated: June 3, 2023 at 9:30 AM UTC · holds now");
    expect(timeline).toContain("stated: May 21, 2023 at 10:00 AM UTC · replaced on June 3, 2023 at 9:30 AM UTC");
    // The past version's own page shows the same timeline, without an edit form.
    const past = items[1]![0]!;
    const pastPage = (await b.get(`/ui/memories/${past}`)).text;
    expect(itemsOf(pastPage)).toEqual(items);
    expect(pastPage).not.toContain('name="content"');
    expect(pastPage).not.toContain('action="/ui/memories/' + past + '/replaces"');
    // The list shows current memories, and with "replaced ones too" the past one marked.
    expect((await b.get("/ui/memories")).text).not.toContain("Orders a flat white");
    expect((await b.get("/ui/memories?superseded=on")).text).toContain("replaced on 2023-06-03 09:30");
  });

  it("marks the memory as replacing another by its key: the other leaves what holds now and joins the timeline", async () => {
    const { b, auth } = await signedIn("ru");
    const berlin = await store(auth, { category: "identity", key: "home_city", content: "Живёт в Берлине" });
    const paris = await store(auth, { category: "identity", key: "new_home", content: "Переехал в Париж" });
    const form = await b.get(`/ui/memories/${paris.id}`);
    expect(timelineOf(form.text)).toContain("Это воспоминание заменяет другое");
    const saved = await b.post(`/ui/memories/${paris.id}/replaces`, { _csrf: csrfOf(form.text), replaces: "home_city" });
    expect(saved.status).toBe(303);
    expect((await call("GET", `/memory/${berlin.id}`, auth)).json).toMatchObject({ superseded_by: paris.id });
    expect(itemsOf((await b.get(`/ui/memories/${paris.id}`)).text)).toEqual([
      [paris.id, "current"],
      [berlin.id, "replaced"],
    ]);
    const missing = await b.post(`/ui/memories/${paris.id}/replaces`, { _csrf: csrfOf(form.text), replaces: "no_such_key" });
    expect(missing.status).toBe(404);
  });
});
