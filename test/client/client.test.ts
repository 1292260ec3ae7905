import { describe, expect, it } from "vitest";
import { EdgemindError, verifyWebhook } from "../../packages/client/src/index";
import { signedHeaders } from "../../src/webhooks/signing";
import { newMind, unique } from "../helpers";
import { clientOf, tenantClients } from "./client-helpers";

/** The error a call fails with (the test fails if it succeeds). */
async function failureOf(pending: Promise<unknown>): Promise<EdgemindError> {
  const error = await pending.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EdgemindError);
  return error as EdgemindError;
}

const key = (base: string) => unique(base).replace(/-/g, "_");

describe("the TypeScript client against the Worker: memories", () => {
  it("stores, updates in place, gets, searches, recalls, lists by tag and shows history", async () => {
    const { agent } = await tenantClients();
    const k = key("coffee");
    const first = await agent.memory.store({ category: "preference", key: k, content: "Любит кофе без сахара", tags: ["coffee"], priority: "high" });
    expect(first.created).toBe(true);
    expect(first.memory).toMatchObject({ key: k, source: "agent", verified: false, tags: ["coffee"] });
    const again = await agent.memory.store({ category: "preference", key: k, content: "Любит кофе с молоком", tags: ["coffee"] });
    expect(again).toMatchObject({ created: false, memory: { id: first.memory.id, content: "Любит кофе с молоком" } });

    expect((await agent.memory.get(first.memory.id)).content).toBe("Любит кофе с молоком");
    const found = await agent.memory.search("кофе");
    expect(found.results.map((m) => m.id)).toEqual([first.memory.id]);
    expect(found.results[0]!.score).toBeGreaterThan(0);
    const recall = await agent.memory.recall({ max_tokens: 500 });
    expect(recall.text).toContain("Любит кофе с молоком");
    expect(recall.tokens).toBeGreaterThan(0);
    expect((await agent.memory.byTag("coffee")).map((m) => m.id)).toEqual([first.memory.id]);
    const history = await agent.memory.history(first.memory.id);
    expect(history.map((h) => h.new_content)).toEqual(["Любит кофе без сахара", "Любит кофе с молоком"]);
    const updated = await agent.memory.update(first.memory.id, { priority: "critical" });
    expect(updated.priority).toBe("critical");
    expect((await agent.memory.list({ category: "preference" })).memories.map((m) => m.id)).toEqual([first.memory.id]);
  });

  it("a person verifies what an agent wrote; the agent cannot; forgetting leaves a not_found with the API's code", async () => {
    const { agent, human } = await tenantClients();
    const { memory } = await agent.memory.store({ category: "fact", key: key("deploy"), content: "Deploys on Fridays" });
    const refused = await failureOf(agent.memory.verify(memory.id));
    expect(refused).toMatchObject({ status: 403, code: "forbidden" });
    expect((await human.memory.verify(memory.id)).verified).toBe(true);

    await agent.memory.forget(memory.id);
    const gone = await failureOf(agent.memory.get(memory.id));
    expect(gone).toMatchObject({ status: 404, code: "not_found" });
    expect(gone.message).toContain("not found");
  });

  it("refusals arrive as one typed error: invalid input, a bad key, a mind not named", async () => {
    const { agent, tenant } = await tenantClients();
    const invalid = await failureOf(agent.memory.store({ category: "fact", key: "Not Snake", content: "x" }));
    expect(invalid).toMatchObject({ status: 400, code: "invalid_request", retryAfter: null });
    expect(invalid.message).toContain("snake_case");
    expect(await failureOf(clientOf("emk_not_a_key_000000000000").memory.search("x"))).toMatchObject({ status: 401, code: "unauthorized" });
    expect(await failureOf(clientOf(tenant.token).memory.search("x"))).toMatchObject({ status: 400, code: "invalid_request" });
  });
});

describe("the TypeScript client against the Worker: notes and cold memory", () => {
  it("adds, lists and searches notes; writes cold memory with a version, refuses a stale one, diffs and rolls back", async () => {
    const { agent } = await tenantClients();
    const note = await agent.notes.add({ text: "Prefers short answers in Russian", category_hint: "preferences" });
    expect(note).toMatchObject({ text: "Prefers short answers in Russian", source: "agent" });
    expect((await agent.notes.list()).notes.map((n) => n.id)).toEqual([note.id]);
    expect((await agent.notes.search("answers")).results.map((n) => n.id)).toEqual([note.id]);

    expect(await agent.cold.get()).toMatchObject({ version: 0, text: "" });
    const first = await agent.cold.put({ text: "## About\n- likes tea", version: 0 });
    expect(first.version).toBe(1);
    const second = await agent.cold.put({ text: "## About\n- likes coffee", version: 1 });
    expect(second.version).toBe(2);
    const stale = await failureOf(agent.cold.put({ text: "## About\n- lost", version: 1 }));
    expect(stale).toMatchObject({ status: 409, code: "memory_changed" });

    const diff = await agent.cold.diff(1, 2);
    expect(diff).toMatchObject({ from: 1, to: 2, added: 1, removed: 1 });
    expect(diff.patch).toContain("+- likes coffee");
    const rolled = await agent.cold.rollback(1);
    expect(rolled).toMatchObject({ version: 3, text: "## About\n- likes tea" });
    expect((await agent.cold.versions()).map((v) => v.version)).toEqual([3, 2, 1]);
    expect((await agent.cold.version(2)).text).toBe("## About\n- likes coffee");
  });
});

describe("the TypeScript client against the Worker: sessions", () => {
  it("opens a task, appends messages, reads both windows, assembles the context and answers Done", async () => {
    const { agent } = await tenantClients();
    await agent.memory.store({ category: "project", key: key("release"), content: "Releases go out on Thursdays" });
    const opened = await agent.sessions.create({ task_name: "release" });
    expect(opened.created).toBe(true);
    expect((await agent.sessions.create({ task_name: "release" })).session.id).toBe(opened.session.id);
    const id = opened.session.id;

    await agent.sessions.addMessage(id, { role: "user", content: "When do releases go out?" });
    await agent.sessions.addMessage(id, { role: "tool", content: "$ git log --oneline\n…", ephemeral: true, tool: "shell" });
    expect((await agent.sessions.messages(id)).messages.map((m) => m.role)).toEqual(["user"]);
    const ui = await agent.sessions.messages(id, { channel: "ui" });
    expect(ui.messages.map((m) => m.role)).toEqual(["user", "tool"]);

    const context = await agent.sessions.context(id, { q: "releases" });
    expect(context.session_id).toBe(id);
    expect(context.system).toContain("Releases go out on Thursdays");
    expect(context.prompt).toContain("When do releases go out?");
    expect(context.ephemeral_left_out.messages).toBe(1);
    expect(context.parts.some((p) => p.part === "search" && p.included)).toBe(true);

    const done = await agent.sessions.done(id);
    expect(done).toMatchObject({ confirmed: true, cleared: 1 });
    expect((await agent.sessions.messages(id, { channel: "ui" })).messages.map((m) => m.role)).toEqual(["user"]);
    expect((await agent.sessions.list()).map((s) => s.id)).toContain(id);
  });
});

describe("the TypeScript client against the Worker: export and import", () => {
  it("exports a mind as JSONL and restores it into an empty one", async () => {
    const { agent, human, tenant } = await tenantClients();
    await agent.memory.store({ category: "fact", key: key("tea"), content: "Drinks tea without sugar" });
    await agent.notes.add({ text: "Uses pnpm" });
    const archive = await human.minds.export();
    expect(archive.split("\n")[0]).toContain('"format":"edgemind-mind"');

    const target = await newMind(tenant.token);
    const restored = await human.minds.import(archive, target.id);
    expect(restored.import.state).toBe("done");
    expect(restored.imported).toMatchObject({ memories: 1, notes: 1 });
    const inTarget = clientOf(tenant.token, { mindId: target.id });
    expect((await inTarget.memory.search("tea")).results.map((m) => m.content)).toEqual(["Drinks tea without sugar"]);
    expect(await failureOf(human.minds.import(archive, target.id))).toMatchObject({ status: 409, code: "conflict" });
  });
});

describe("the TypeScript client against the Worker: webhooks", () => {
  it("creates a webhook (its secret shown once), lists, rotates its secret, shows its log and deletes it", async () => {
    const { human, agent } = await tenantClients();
    // An address no DNS is asked for, and only the mind's erasure: nothing is delivered here.
    const created = await human.webhooks.create({ url: "https://93.184.216.34/client", types: ["mind.erased"] });
    expect(created).toMatchObject({ url: "https://93.184.216.34/client", types: ["mind.erased"], enabled: true });
    expect(created.secret).toMatch(/^whsec_/);
    expect((await human.webhooks.list()).map((w) => w.id)).toEqual([created.id]);
    expect(await human.webhooks.get(created.id)).not.toHaveProperty("secret");
    const rotated = await human.webhooks.rotateSecret(created.id, { graceHours: 2 });
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.previous_secret_until).not.toBeNull();
    expect(await human.webhooks.attempts(created.id)).toEqual([]);
    expect(await failureOf(agent.webhooks.list())).toMatchObject({ status: 400, code: "invalid_request" });
    await human.webhooks.delete(created.id);
    expect(await human.webhooks.list()).toEqual([]);
  });

  it("verifyWebhook accepts Standard Webhooks' own example and what the Worker signs, and nothing altered", async () => {
    const example = {
      "webhook-id": "msg_p5jXN8AQM9LWM0D4loKWxJek",
      "webhook-timestamp": "1614265330",
      "webhook-signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    };
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const at = { now: new Date(1614265330 * 1000) };
    expect(await verifyWebhook(secret, example, '{"test": 2432232314}', at)).toBe(true);
    expect(await verifyWebhook(secret, example, '{"test": 2432232315}', at)).toBe(false);
    expect(await verifyWebhook(secret, example, '{"test": 2432232314}')).toBe(false);
    const timestamp = Math.floor(Date.now() / 1000);
    const signed = await signedHeaders(["whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", secret], "evt_1", timestamp, "{}");
    expect(await verifyWebhook(secret, new Headers(signed), "{}")).toBe(true);
    expect(await verifyWebhook("whsec_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=", signed, "{}")).toBe(false);
  });
});
