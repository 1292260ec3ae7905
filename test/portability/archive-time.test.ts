import { describe, expect, it } from "vitest";
import { call, followImport, newMind, newTenant, store } from "../helpers";

// The archive carries when each memory was stated and its validity (version 2): a replaced
// statement is a line of its own, naming the memory that replaced it. Version 1 archives, which
// carry neither, still import: each memory stated when it was created, and current.

const MAY = "2023-05-21T10:00:00.000Z";
const JUNE = "2023-06-03T09:30:00.000Z";

type Auth = { token: string; mind: string };

async function exported(auth: Auth): Promise<any[]> {
  const res = await call("GET", `/minds/${auth.mind}/export`, { token: auth.token });
  expect(res.status).toBe(200);
  return res.text.trimEnd().split("\n").map((line) => JSON.parse(line));
}

async function imported(auth: Auth, lines: object[]) {
  const body = lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
  const answer = await call("POST", `/minds/${auth.mind}/import`, { token: auth.token, rawBody: body, headers: { "Content-Type": "application/x-ndjson" } });
  const done = await followImport(auth.mind, auth.token, answer);
  expect(done.status, done.text).toBe(200);
  return done;
}

/** Each memory line as content → [when stated, valid from, valid until, the content of what replaced it]. */
function validity(lines: any[]): Record<string, [string, string, string | null, string | null]> {
  const memories = lines.filter((l) => l.type === "memory");
  const contentOf = new Map(memories.map((m) => [m.id, m.content]));
  return Object.fromEntries(
    memories.map((m) => [m.content, [m.observed_at, m.valid_from, m.valid_until, m.superseded_by === null ? null : (contentOf.get(m.superseded_by) ?? "gone")]]),
  );
}

describe("an archive of memories that changed", () => {
  it("keeps each statement with its validity through export and import, and the restored mind answers as of then", async () => {
    const t = await newTenant();
    const source = { token: t.token, mind: t.mind.id };
    await store(source, { category: "preference", key: "coffee_order", content: "Orders a flat white", observed_at: MAY });
    await store(source, { category: "preference", key: "coffee_order", content: "Orders an oat latte", observed_at: JUNE });
    await store(source, { category: "identity", key: "home_city", content: "Lives in Berlin", observed_at: MAY });
    await store(source, { category: "identity", key: "new_home", content: "Moved to Paris", supersedes: "home_city", observed_at: JUNE });

    const lines = await exported(source);
    expect(lines[0]).toMatchObject({ type: "header", version: 2 });
    const expected = {
      "Orders a flat white": [MAY, MAY, JUNE, "Orders an oat latte"],
      "Orders an oat latte": [JUNE, JUNE, null, null],
      "Lives in Berlin": [MAY, MAY, JUNE, "Moved to Paris"],
      "Moved to Paris": [JUNE, JUNE, null, null],
    };
    expect(validity(lines)).toEqual(expected);
    // A replaced statement keeps its key in the archive, as every front shows it.
    expect(lines.filter((l) => l.type === "memory" && l.key === "coffee_order")).toHaveLength(2);

    const target = { token: t.token, mind: (await newMind(t.token)).id };
    const done = await imported(target, lines);
    expect(done.json.imported).toMatchObject({ memories: 4 });
    const again = await exported(target);
    expect(validity(again)).toEqual(expected);
    expect(new Set(again.filter((l) => l.type === "memory").map((l) => l.id))).not.toContain(lines.find((l) => l.type === "memory").id);

    const now = await call("GET", "/memory/search?q=coffee+order", target);
    expect(now.json.results.map((m: { content: string }) => m.content)).toEqual(["Orders an oat latte"]);
    const then = await call("GET", "/memory/search?q=coffee+order&as_of=2023-05-30", target);
    expect(then.json.results.map((m: { content: string }) => m.content)).toEqual(["Orders a flat white"]);
    // The restored key holds its newest statement: one more write makes a third version, not a conflict.
    await store(target, { category: "preference", key: "coffee_order", content: "Orders a cortado" });
    expect((await call("GET", "/memory?include=superseded&category=preference", target)).json.total).toBe(3);
  });
});

describe("a version 1 archive", () => {
  it("is read with each memory stated, and valid from, when it was created, every one current", async () => {
    const t = await newTenant();
    const target = { token: t.token, mind: t.mind.id };
    const created = "2021-03-04T08:00:00.000Z";
    const v1 = [
      { type: "header", format: "edgemind-mind", version: 1, exported_at: created, mind: { id: "m", name: "old", locale: "en", retention_hours: null, settings: {} } },
      {
        type: "memory", id: "mem_v1", agent: "default", category: "fact", key: "bike_colour", content: "The bike is red", tags: [],
        priority: "normal", source: "user", verified: true, confidence: 1, expires_at: null, created_at: created, updated_at: "2022-01-01T00:00:00.000Z",
      },
    ];
    await imported(target, v1);
    const found = (await call("GET", "/memory/search?q=bike", target)).json.results;
    expect(found).toMatchObject([{ key: "bike_colour", observed_at: created, valid_from: created, valid_until: null, superseded_by: null }]);
    expect((await call("GET", "/memory/search?q=bike&as_of=2021-03-05", target)).json.results).toHaveLength(1);
    expect((await call("GET", "/memory/search?q=bike&as_of=2021-03-03", target)).json.results).toEqual([]);
    expect((await call("GET", "/memory/recall", target)).text).toContain("date: 4 Mar 2021");
  });

  it("refuses a memory line that is replaced without saying until when", async () => {
    const t = await newTenant();
    const target = { token: t.token, mind: t.mind.id };
    const at = "2021-03-04T08:00:00.000Z";
    const line = { type: "memory", id: "mem_a", agent: "default", category: "fact", key: "k", content: "x", tags: [], priority: "normal", source: "user", verified: true, confidence: 1, expires_at: null, created_at: at, updated_at: at };
    const body = [
      { type: "header", format: "edgemind-mind", version: 2, exported_at: at, mind: { id: "m", name: "old", locale: "en", retention_hours: null, settings: {} } },
      { ...line, superseded_by: "mem_b" },
    ];
    const res = await call("POST", `/minds/${target.mind}/import`, { token: t.token, rawBody: body.map((l) => JSON.stringify(l)).join("\n"), headers: { "Content-Type": "application/x-ndjson" } });
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain("line 2");
  });
});
