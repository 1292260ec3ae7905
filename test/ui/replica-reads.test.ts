import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { D1_BOOKMARK } from "../../src/db/replicas";
import { newKey, newTenant, store } from "../helpers";
import { roundTripWorker } from "../support/round-trip-worker";
import { browser, csrfOf } from "./ui-helpers";

// Where the web UI's statements on the mind's database start, counted through the D1 sessions
// each request opens: a page at the person's known position or any replica, a form post at the primary.

/** The Worker, every database binding noting the sessions it opens. */
function countingWorker() {
  const { fetch, on, reset } = roundTripWorker();
  return { fetch, startsOn: (shard: string) => on(shard)?.starts ?? [], reset };
}

describe("the web UI's reads of the mind's database", () => {
  it("a page reads through a session from a replica, a form post starts at the primary, and the next page reads from a bookmark", async () => {
    const w = countingWorker();
    const t = await newTenant();
    const shard = (await env.DB.prepare("select shard from minds where id = ?").bind(t.mind.id).first<string>("shard"))!;
    const { key } = await newKey(t.token, t.mind.id);
    const tea = await store({ token: key }, { category: "preference", key: "tea_order", content: "Green tea, no sugar" });
    const b = browser({ "Accept-Language": "en" }, w.fetch);
    expect((await b.post("/ui/login", { jwt: t.token })).status).toBe(303);

    w.reset();
    const list = await b.get("/ui/memories");
    expect(list.text).toContain("tea_order");
    expect(w.startsOn(shard)).toHaveLength(1);
    expect(w.startsOn(shard)[0]).not.toBe("first-primary");

    w.reset();
    expect((await b.post(`/ui/memories/${tea.id}/verify`, { _csrf: csrfOf(list.text) })).status).toBe(303);
    expect(w.startsOn(shard)).toEqual(["first-primary"]);

    // The person's own verification, read from a replica at least as new as it.
    w.reset();
    const detail = await b.get(`/ui/memories/${tea.id}`);
    expect(detail.text).toMatch(/<td>verified<\/td>/);
    expect(w.startsOn(shard)).toHaveLength(1);
    expect(w.startsOn(shard)[0]).toMatch(D1_BOOKMARK);
  });
});
