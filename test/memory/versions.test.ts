import { describe, expect, it } from "vitest";
import type { Memory } from "../../src/memory/rows";
import { CLOSE, statedLaterFirst } from "../../src/memory/stated-later";
import { call, newTenant, store } from "../helpers";

// A memory is a statement made at a time: a later statement replaces it (a write with the same
// key, or one naming it in `supersedes`), and it stays readable as replaced. Reads show what
// holds now; as_of what held then; include=superseded the history.

const MAY = "2023-05-21T10:00:00.000Z";
const JUNE = "2023-06-03T09:30:00.000Z";

type Auth = { token: string; mind: string };

async function tenant(): Promise<Auth> {
  const t = await newTenant();
  return { token: t.token, mind: t.mind.id };
}

const searched = async (auth: Auth, query: string) => {
  const res = await call("GET", `/memory/search?${query}`, auth);
  expect(res.status, res.text).toBe(200);
  return res.json.results as { id: string; content: string; valid_until: string | null; superseded_by: string | null }[];
};
const contents = (list: { content: string }[]) => list.map((m) => m.content).sort();

describe("a write with the same key", () => {
  it("makes the newer statement current under the same id and keeps the older one, valid until then", async () => {
    const auth = await tenant();
    const first = await store(auth, { category: "preference", key: "coffee_order", content: "Orders a flat white", tags: ["coffee"], observed_at: MAY });
    expect(first).toMatchObject({ observed_at: MAY, valid_from: MAY, valid_until: null, superseded_by: null });
    const res = await call("POST", "/memory", { ...auth, body: { category: "preference", key: "coffee_order", content: "Orders an oat latte", observed_at: JUNE } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: first.id, content: "Orders an oat latte", observed_at: JUNE, valid_from: JUNE, valid_until: null, tags: ["coffee"] });

    // Now: only the newer statement.
    expect(contents(await searched(auth, "q=coffee+order"))).toEqual(["Orders an oat latte"]);
    // Before the change: only the older one, marked as replaced by the memory.
    const before = await searched(auth, "q=coffee+order&as_of=2023-05-25");
    expect(before).toMatchObject([{ content: "Orders a flat white", valid_until: JUNE, superseded_by: first.id, key: "coffee_order", observed_at: MAY }]);
    expect(before[0]!.id).not.toBe(first.id);
    // The history: both, each marked.
    const history = await searched(auth, "q=coffee+order&include=superseded");
    expect(history.map((m) => [m.content, m.superseded_by])).toEqual(
      expect.arrayContaining([["Orders an oat latte", null], ["Orders a flat white", first.id]]),
    );
    expect(history).toHaveLength(2);
    // The old statement is a memory of its own, readable by its id.
    const old = await call("GET", `/memory/${before[0]!.id}`, auth);
    expect(old.json).toMatchObject({ key: "coffee_order", content: "Orders a flat white", superseded_by: first.id });
  });

  it("shows the same in recall, the list and by tag, each memory with its date", async () => {
    const auth = await tenant();
    const first = await store(auth, { key: "team_size", content: "The team has four people", tags: ["team"], observed_at: MAY });
    await store(auth, { key: "team_size", content: "The team has six people", tags: ["team"], observed_at: JUNE });

    const now = await call("GET", "/memory/recall", auth);
    expect(now.text).toContain("content: The team has six people\ndate: 3 Jun 2023");
    expect(now.text).not.toContain("four people");
    const then = await call("GET", `/memory/recall?as_of=${encodeURIComponent("2023-05-30T00:00:00Z")}`, auth);
    expect(then.text).toContain("[replaced 3 Jun 2023]");
    expect(then.text).toContain("content: The team has four people\ndate: 21 May 2023");
    expect(then.text).not.toContain("six people");
    // With the history, the versions of one memory come together, newest statement first.
    const history = await call("GET", "/memory/recall?include=superseded", auth);
    expect(history.text.indexOf("six people")).toBeLessThan(history.text.indexOf("four people"));

    expect(contents((await call("GET", "/memory", auth)).json.memories)).toEqual(["The team has six people"]);
    const listed = await call("GET", "/memory?include=superseded", auth);
    expect(listed.json.total).toBe(2);
    expect(contents((await call("GET", "/memory/by-tag?tag=team&as_of=2023-05-22", auth)).json.memories)).toEqual(["The team has four people"]);
    expect(contents((await call("GET", "/memory/by-tag?tag=team", auth)).json.memories)).toEqual(["The team has six people"]);
    // Before it was stated at all, nothing held.
    expect(await searched(auth, "q=team&as_of=2023-05-01")).toEqual([]);
    expect(first.id).toBeTruthy();
  });

  it("with the same content writes no second statement", async () => {
    const auth = await tenant();
    await store(auth, { key: "editor", content: "Uses Helix", observed_at: MAY });
    const again = await store(auth, { key: "editor", content: "Uses Helix", priority: "high" });
    expect(again).toMatchObject({ observed_at: MAY, priority: "high" });
    expect((await call("GET", "/memory?include=superseded", auth)).json.total).toBe(1);
  });
});

describe("supersedes on a write", () => {
  it("replaces the memory with that key: it stays, valid until the new statement, and what held before is readable", async () => {
    const auth = await tenant();
    const berlin = await store(auth, { category: "identity", key: "home_city", content: "Lives in Berlin", observed_at: MAY });
    const paris = await store(auth, { category: "identity", key: "new_home", content: "Moved to Paris", supersedes: "home_city", observed_at: JUNE });
    expect(paris).toMatchObject({ superseded_by: null, valid_from: JUNE });

    expect(contents(await searched(auth, "q=berlin+paris+lives+moved"))).toEqual(["Moved to Paris"]);
    expect(await searched(auth, "q=berlin+paris+lives+moved&as_of=2023-05-22")).toMatchObject([
      { id: berlin.id, content: "Lives in Berlin", superseded_by: paris.id, valid_until: JUNE },
    ]);
    expect(contents(await searched(auth, "q=berlin+paris+lives+moved&include=superseded"))).toEqual(["Lives in Berlin", "Moved to Paris"]);
    // Its key is free again: a new memory under it is current beside the replaced one.
    const again = await store(auth, { category: "identity", key: "home_city", content: "Lives in Lyon" });
    expect(again.id).not.toBe(berlin.id);
    expect((await call("GET", `/memory/${berlin.id}`, auth)).json).toMatchObject({ key: "home_city", superseded_by: paris.id });
  });

  it("replaces the memory with that id, on a change too; an unknown one is not found and nothing is written", async () => {
    const auth = await tenant();
    const old = await store(auth, { key: "deadline", content: "The release is due on Friday", observed_at: MAY });
    const moved = await store(auth, { key: "release_date", content: "The release moved to Monday" });
    const changed = await call("PUT", `/memory/${moved.id}`, { ...auth, body: { supersedes: old.id } });
    expect(changed.status, changed.text).toBe(200);
    expect(contents(await searched(auth, "q=release"))).toEqual(["The release moved to Monday"]);
    expect((await call("GET", `/memory/${old.id}`, auth)).json.superseded_by).toBe(moved.id);

    const unknown = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "other", content: "x", supersedes: "no_such_key" } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toContain("no_such_key");
    expect((await call("GET", "/memory?include=superseded", auth)).json.total).toBe(2);
  });
});

describe("a replaced statement", () => {
  it("is not changed in place (conflict), goes with its memory when that is deleted, and counts in no memory quota", async () => {
    const auth = await tenant();
    expect((await call("PATCH", `/minds/${auth.mind}`, { token: auth.token, body: { settings: { max_memories: 1 } } })).status).toBe(200);
    const first = await store(auth, { key: "plan", content: "Plan A" });
    await store(auth, { key: "plan", content: "Plan B" });
    await store(auth, { key: "plan", content: "Plan C" });
    const past = await searched(auth, "q=plan&include=superseded");
    expect(past).toHaveLength(3);
    const older = past.find((m) => m.content === "Plan A")!;
    const put = await call("PUT", `/memory/${older.id}`, { ...auth, body: { content: "Plan Z" } });
    expect(put.status).toBe(409);
    expect(put.json.error.message).toContain(first.id);
    // The quota counts current memories: the one slot is taken.
    expect((await call("POST", "/memory", { ...auth, body: { category: "fact", key: "other", content: "x" } })).status).toBe(403);

    expect((await call("DELETE", `/memory/${first.id}`, auth)).status).toBe(204);
    expect(await searched(auth, "q=plan&include=superseded")).toEqual([]);
    expect((await call("GET", `/memory/${older.id}`, auth)).status).toBe(404);
  });

  it("rejects a statement said to be made in the future", async () => {
    const auth = await tenant();
    const res = await call("POST", "/memory", { ...auth, body: { category: "fact", key: "later", content: "x", observed_at: "2999-01-01T00:00:00Z" } });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain("observed_at");
  });
});

describe("hits saying different things about one subject", () => {
  const hit = (id: string, key: string, content: string, observed_at: string, score: number) => ({
    memory: { id, agent: "default", category: "fact", key, content, tags: [], observed_at } as unknown as Memory,
    score,
  });

  it("rank the one stated later first, in the places and with the scores the run had; other hits stay", () => {
    const q = "personal best for the 5k run";
    const AUTUMN = "2024-01-01T00:00:00.000Z";
    const hits = [
      hit("earlier", "pb", "Personal best for the 5k run is 26 minutes", MAY, 10),
      hit("later", "new_pb", "New personal best on the 5k run: 24 minutes", JUNE, 9),
      hit("other", "shoes", "Runs in blue shoes", AUTUMN, 8.9),
      // The same terms, but not next to the run: another matter, as is one scoring far below the hit before it.
      hit("apart", "pb_club", "Personal best 5k run of the club", "2023-01-01T00:00:00.000Z", 8.8),
      hit("low", "pb_old", "Personal best 5k run, long ago", AUTUMN, 8.8 * CLOSE - 1),
    ];
    const ranked = statedLaterFirst(hits, q);
    expect(ranked.map((h) => [h.memory.id, h.score])).toEqual([["later", 10], ["earlier", 9], ["other", 8.9], ["apart", 8.8], ["low", 8.8 * CLOSE - 1]]);
  });

  it("rank a memory's versions newest statement first, whatever their words", () => {
    const ranked = statedLaterFirst([hit("old", "plan", "Plan A for the launch", MAY, 5), hit("new", "plan", "Plan B", JUNE, 1)], "launch plan");
    expect(ranked.map((h) => h.memory.id)).toEqual(["new", "old"]);
  });

  it("come stated later first from search, though the earlier one matches better and was written last", async () => {
    const auth = await tenant();
    const later = await store(auth, { key: "run_record_new", content: "A new personal best for the 5k run today: 24 minutes 10 seconds", observed_at: JUNE });
    const earlier = await store(auth, { key: "run_record", content: "Personal best for the 5k run: 26 minutes", observed_at: MAY });
    const found = await searched(auth, "q=personal+best+5k+run");
    expect(found.map((m) => m.id)).toEqual([later.id, earlier.id]);
  });
});
