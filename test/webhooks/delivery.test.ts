import { describe, expect, it } from "vitest";
import { DICTIONARIES } from "../../src/ui/i18n";
import { call, newTenant, store } from "../helpers";
import { rowsEverywhere } from "../support/shards";
import { PUBLIC_ADDRESS, type Received, standInReceivers, verifiesWith } from "../support/webhooks";
import { browser, csrfOf } from "../ui/ui-helpers";

// Events through the whole Worker: a write over HTTP, its event row in the write's batch, the
// wake after the answer, the queue's consumer (the local queue of wrangler.toml) delivering it to
// a receiver the test stands in for, signed as Standard Webhooks.

const net = standInReceivers();
net.resolve("receiver.test", PUBLIC_ADDRESS);

let serial = 0;
/** A tenant whose mind has a webhook at a receiver of its own; the receiver's URL and the signing secret. */
async function subscribed(types?: string[], settings?: Record<string, unknown>) {
  const t = await newTenant();
  if (settings) expect((await call("PATCH", `/minds/${t.mind.id}`, { token: t.token, body: { settings } })).status).toBe(200);
  const url = `https://receiver.test/hooks/${++serial}`;
  net.receiver(url);
  const created = await call("POST", `/minds/${t.mind.id}/webhooks`, { token: t.token, body: { url, ...(types && { types }) } });
  expect(created.status, created.text).toBe(201);
  return { ...t, auth: { token: t.token, mind: t.mind.id }, url, secret: created.json.secret as string, webhook: created.json };
}

/** What the receiver got once `count` deliveries arrived (waiting for the queue's consumer). */
async function received(url: string, count: number, timeoutMs = 15_000): Promise<Received[]> {
  const deadline = Date.now() + timeoutMs;
  while (net.at(url).length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  return net.at(url);
}

const eventsOf = (mindId: string) => rowsEverywhere<{ type: string; sequence: number }>("select type, sequence from events where mind_id = ? order by sequence", mindId);

describe("a mind's events reach its webhook", () => {
  it("POST /memory: memory.created arrives, signed, and verifies as Standard Webhooks says", async () => {
    const s = await subscribed();
    expect(s.webhook).toMatchObject({ url: s.url, enabled: true, pending: 0 });
    expect(s.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const memory = await store(s.auth, { key: "tea", content: "Drinks green tea", tags: ["drinks"] });
    const [delivery] = await received(s.url, 1);
    expect(delivery).toBeDefined();
    expect(await verifiesWith(s.secret, delivery!)).toBe(true);
    expect(await verifiesWith(s.secret, { ...delivery!, body: delivery!.body.replace("green", "black") })).toBe(false);
    expect(delivery!.headers["webhook-id"]).toBe(delivery!.event.id);
    expect(Math.abs(Number(delivery!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(60);
    expect(delivery!.event).toMatchObject({
      type: "memory.created",
      mind_id: s.mind.id,
      agent: "default",
      sequence: 1,
      data: { memory: { id: memory.id, key: "tea", content: "Drinks green tea", tags: ["drinks"], verified: true, source: "user" } },
    });
    expect(delivery!.event.data.changed).toEqual(expect.arrayContaining(["content", "key", "tags"]));
    expect(Object.keys(delivery!.event)).toEqual(["id", "type", "mind_id", "agent", "occurred_at", "sequence", "data"]);
    // Nothing of a key or a secret: only what the memory holds.
    expect(delivery!.body).not.toMatch(/whsec_|emk_|search_/);
  });

  it("an edit, a verification and a deletion arrive after the creation, in order, each once", async () => {
    const s = await subscribed();
    const key = await call("POST", `/minds/${s.mind.id}/keys`, { token: s.token, body: {} });
    const agent = { token: key.json.key as string };
    const memory = await store(agent, { key: "editor", content: "Uses vim" });
    expect((await call("PUT", `/memory/${memory.id}`, { ...agent, body: { content: "Uses helix", priority: "high" } })).status).toBe(200);
    expect((await call("POST", `/memory/${memory.id}/verify`, { ...s.auth })).status).toBe(200);
    expect((await call("DELETE", `/memory/${memory.id}`, { ...agent })).status).toBe(204);
    const got = await received(s.url, 4);
    expect(got.map((d) => [d.event.sequence, d.event.type])).toEqual([
      [1, "memory.created"],
      [2, "memory.updated"],
      [3, "memory.verified"],
      [4, "memory.deleted"],
    ]);
    const [created, edited, verified, deleted] = got.map((d) => d.event);
    expect(created.data.memory).toMatchObject({ source: "agent", verified: false, content: "Uses vim" });
    expect(edited.data).toMatchObject({ memory: { content: "Uses helix", priority: "high" } });
    expect([...edited.data.changed].sort()).toEqual(["content", "priority"]);
    expect(verified.data).toMatchObject({ memory: { verified: true }, changed: ["verified"] });
    expect(deleted.data).toMatchObject({ memory: { id: memory.id, content: "Uses helix" }, changed: [] });
    expect(new Set(got.map((d) => d.event.id)).size).toBe(4);
    for (const d of got) expect(await verifiesWith(s.secret, d)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(net.at(s.url)).toHaveLength(4);
  });

  it("a later statement of the same key tells memory.superseded for the one it replaced, with its validity", async () => {
    const s = await subscribed();
    const memory = await store(s.auth, { key: "home_city", content: "Lives in Berlin", observed_at: "2023-05-21T10:00:00Z" });
    await store(s.auth, { key: "home_city", content: "Lives in Paris", observed_at: "2023-06-03T09:30:00Z" });
    const got = await received(s.url, 3);
    expect(got.map((d) => d.event.type).sort()).toEqual(["memory.created", "memory.superseded", "memory.updated"]);
    const replaced = got.find((d) => d.event.type === "memory.superseded")!.event;
    expect(replaced.data.memory).toMatchObject({ content: "Lives in Berlin", superseded_by: memory.id, valid_until: "2023-06-03T09:30:00.000Z" });
    expect(replaced.data.changed).toEqual(["valid_until", "superseded_by"]);
    expect(got.find((d) => d.event.type === "memory.updated")!.event.data.memory).toMatchObject({ id: memory.id, content: "Lives in Paris", superseded_by: null });
  });

  it("a write that fails sends nothing: no event row, nothing delivered", async () => {
    const s = await subscribed(undefined, { max_memories: 1 });
    await store(s.auth, { key: "first", content: "The first memory" });
    const over = await call("POST", "/memory", { ...s.auth, body: { category: "fact", key: "second", content: "One too many" } });
    expect(over.status).toBe(403);
    expect((await call("PUT", "/memory/mem_missing", { ...s.auth, body: { content: "Nothing here" } })).status).toBe(404);
    expect((await call("PUT", "/cold", { ...s.auth, body: { text: "stale", version: 7 } })).status).toBe(409);
    await received(s.url, 1);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(net.at(s.url).map((d) => d.event.data.memory.key)).toEqual(["first"]);
    expect(await eventsOf(s.mind.id)).toEqual([{ type: "memory.created", sequence: 1 }]);
  });

  it("notes, cold memory and sessions have their events, each type only to the webhooks that want it", async () => {
    const s = await subscribed(["note.created", "cold.updated", "session.created", "session.done"]);
    const key = await call("POST", `/minds/${s.mind.id}/keys`, { token: s.token, body: {} });
    const agent = { token: key.json.key as string };
    await store(s.auth, { key: "unwanted", content: "A memory no webhook asked for" });
    const note = await call("POST", "/notes", { ...agent, body: { text: "Prefers short answers" } });
    const person = await call("PUT", "/cold", { ...s.auth, body: { text: "## About\n- short answers", version: 0 } });
    const client = await call("PUT", "/cold", { ...agent, body: { text: "## About\n- very short answers", version: 1 } });
    const session = await call("POST", "/sessions", { ...agent, body: { task_name: "deploy" } });
    await call("POST", `/sessions/${session.json.id}/messages`, { ...agent, body: { role: "tool", content: "npm output", ephemeral: true } });
    const done = await call("POST", `/sessions/${session.json.id}/complete`, { ...agent, body: { confirmed: true } });
    expect([note.status, person.status, client.status, session.status, done.status]).toEqual([201, 200, 200, 201, 200]);
    const got = (await received(s.url, 5)).map((d) => d.event);
    expect(got.map((e) => [e.sequence, e.type])).toEqual([
      [1, "note.created"],
      [2, "cold.updated"],
      [3, "cold.updated"],
      [4, "session.created"],
      [5, "session.done"],
    ]);
    expect(got[0].data.note).toMatchObject({ id: note.json.id, text: "Prefers short answers", source: "agent" });
    expect(got[1].data).toMatchObject({ agent: "default", version: 1, author: { kind: "person", id: s.accountId } });
    expect(got[2].data).toMatchObject({ version: 2, author: { kind: "client" } });
    expect(got[2].data.author.id).toBe(key.json.prefix);
    expect(got[3].data.session).toMatchObject({ id: session.json.id, task_name: "deploy" });
    expect(got[4].data.session).toMatchObject({ id: session.json.id });
  });
});

describe("erasing a mind", () => {
  it("tells its webhooks mind.erased, drops what else was waiting, and erases the webhooks with the mind", async () => {
    const s = await subscribed(["mind.erased", "note.created"]);
    // A receiver that is down: the note waits for it.
    net.receiver(s.url, { answers: [503] });
    await call("POST", "/notes", { ...s.auth, body: { text: "Waits in the queue" } });
    await received(s.url, 1);
    net.receiver(s.url);
    const erased = await call("DELETE", `/minds/${s.mind.id}`, { token: s.token });
    expect([200, 202]).toContain(erased.status);
    expect(erased.json.deleted).toMatchObject({ webhooks: 1 });
    const got = await received(s.url, 2);
    expect(got.at(-1)!.event).toMatchObject({ type: "mind.erased", mind_id: s.mind.id, agent: null, sequence: 2 });
    expect(await verifiesWith(s.secret, got.at(-1)!)).toBe(true);
    const deadline = Date.now() + 15_000;
    while ((await call("DELETE", `/minds/${s.mind.id}`, { token: s.token })).status !== 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    for (const table of ["webhooks", "events", "event_streams", "webhook_attempts"]) {
      expect(await rowsEverywhere(`select 1 from ${table} where mind_id = ?`, s.mind.id), table).toEqual([]);
    }
    // The note's event was tried once (503) and dropped with the mind: the erasure's was the last.
    expect(net.at(s.url).map((d) => d.event.type)).toEqual(["note.created", "mind.erased"]);
  });
});

describe("the web UI's webhooks page", () => {
  it("adds a webhook (its secret shown once), lists it with its last deliveries, and deletes it with the page's CSRF token", async () => {
    const t = await newTenant();
    const b = browser();
    expect((await b.post("/ui/login", { jwt: t.token })).status).toBe(303);
    const empty = await b.get("/ui/webhooks");
    expect(empty.text).toContain(DICTIONARIES.en.noWebhooks);
    const refused = await b.post("/ui/webhooks", { _csrf: csrfOf(empty.text), url: "https://169.254.169.254/" });
    expect(refused.status).toBe(400);
    const url = `https://receiver.test/hooks/ui-${++serial}`;
    net.receiver(url);
    expect((await b.post("/ui/webhooks", { url })).status).toBe(403);
    const made = await b.post("/ui/webhooks", { _csrf: csrfOf(empty.text), url });
    expect(made.status).toBe(200);
    const secret = /<pre>(whsec_[^<]+)<\/pre>/.exec(made.text)![1]!;
    await store({ token: t.token, mind: t.mind.id }, { key: "seen_on_the_page", content: "Shown in the delivery log" });
    const [delivery] = await received(url, 1);
    expect(await verifiesWith(secret, delivery!)).toBe(true);
    let listed = await b.get("/ui/webhooks");
    for (let i = 0; i < 50 && !listed.text.includes("#1 memory.created"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      listed = await b.get("/ui/webhooks");
    }
    expect(listed.text).toContain(url);
    expect(listed.text).toContain("<td>#1 memory.created</td><td>200</td>");
    expect(listed.text).not.toContain(secret);
    const id = /<div class="card webhook" data-id="([^"]+)">/.exec(listed.text)![1]!;
    const deleted = await b.post("/ui/webhooks/delete", { _csrf: csrfOf(listed.text), webhook: id });
    expect(deleted.headers.get("Location")).toBe("/ui/webhooks?ok=webhookDeleted");
    expect((await call("GET", `/minds/${t.mind.id}/webhooks`, { token: t.token })).json.webhooks).toEqual([]);
  });
});
