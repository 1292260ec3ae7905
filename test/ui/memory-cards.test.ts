import { describe, expect, it } from "vitest";
import { call, newTenant, store } from "../helpers";
import { browser } from "./ui-helpers";

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
