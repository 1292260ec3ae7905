import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { INITIAL_COUNTERS, planAppend, type SessionCounters } from "../../src/sessions/counters";
import { SessionObject } from "../../src/sessions/session-object";
import { call } from "../helpers";
import { rowsEverywhere } from "../support/shards";
import { type Auth, append, callerOf, channel, contents, countRows, newAuth, openSession, patchSettings, runAlarmToEnd, storedState } from "./session-helpers";

const stubOf = (sessionId: string) => env.SESSIONS.get(env.SESSIONS.idFromName(sessionId));
const uiContents = async (auth: Auth, id: string) => contents(await channel(auth, id, "ui", "&limit=200"));

describe("ephemeral TTL, as a plan", () => {
  const settings = { ephemeral_ttl: 3, extract_every: 20 };
  const run = (messages: { ephemeral?: boolean; tool?: string | null }[], start: SessionCounters = INITIAL_COUNTERS) => {
    let state = start;
    const clears: boolean[] = [];
    for (const m of messages) {
      const plan = planAppend(state, { ephemeral: m.ephemeral ?? false, tool: m.tool ?? null, transactionCompleted: false }, settings);
      clears.push(plan.clearEphemeral);
      state = plan.next;
    }
    return { state, clears };
  };

  it("counts only messages not about the active tool, and resets on the tool's own messages", () => {
    const { clears, state } = run([{ ephemeral: true, tool: "ls" }, {}, {}, { tool: "ls" }, {}, {}]);
    expect(clears).toEqual([false, false, false, false, false, false]);
    expect(state).toMatchObject({ ephemeralPending: true, activeTool: "ls", unrelatedSinceTool: 2, sinceExtraction: 5 });
    expect(run([{ ephemeral: true, tool: "ls" }, {}, {}, {}]).clears).toEqual([false, false, false, true]);
  });

  it("clears on a switch to another tool, before the new output is written", () => {
    const { clears, state } = run([{ ephemeral: true, tool: "ls" }, { ephemeral: true, tool: "cat" }]);
    expect(clears).toEqual([false, true]);
    expect(state).toMatchObject({ ephemeralPending: true, activeTool: "cat", unrelatedSinceTool: 0, sinceExtraction: 0 });
    expect(run([{}, { tool: "cat" }]).clears).toEqual([false, false]);
  });

  it("schedules extraction once when extract_every non-ephemeral messages have accumulated", () => {
    let state = INITIAL_COUNTERS;
    const scheduled: number[] = [];
    for (let i = 1; i <= 45; i++) {
      const plan = planAppend(state, { ephemeral: i % 5 === 0, tool: "x", transactionCompleted: false }, settings);
      if (plan.scheduleExtraction) scheduled.push(i);
      state = plan.next;
    }
    expect(scheduled).toEqual([24]);
    expect(state).toMatchObject({ sinceExtraction: 36, extractionScheduled: true, appended: 45 });
  });
});

describe("ephemeral TTL through the routes", () => {
  it("keeps output while messages are about the same tool", async () => {
    const auth = await newAuth();
    const s = await openSession(auth);
    await append(auth, s.id, { role: "tool", content: "out-1", ephemeral: true, tool: "ls" });
    for (let i = 0; i < 6; i++) {
      const r = await append(auth, s.id, { content: `about ls ${i}`, tool: "ls" });
      expect(r.cleared).toBe(0);
    }
    expect(await uiContents(auth, s.id)).toContain("out-1");
    const got = await call("GET", `/sessions/${s.id}`, auth);
    expect(got.json.state).toMatchObject({ ephemeral_pending: true, active_tool: "ls", unrelated_since_tool: 0 });
  });

  it("clears after ephemeral_ttl unrelated messages in a row, and a new TTL applies at once", async () => {
    const auth = await newAuth();
    const s = await openSession(auth);
    await append(auth, s.id, { role: "tool", content: "out-a", ephemeral: true, tool: "ls" });
    await append(auth, s.id, { role: "tool", content: "out-b", ephemeral: true, tool: "ls" });
    expect((await append(auth, s.id, { content: "u1" })).cleared).toBe(0);
    expect((await append(auth, s.id, { content: "u2" })).cleared).toBe(0);
    const third = await append(auth, s.id, { content: "u3" });
    expect(third.cleared).toBe(2);
    expect(third.state).toMatchObject({ ephemeral_pending: false, active_tool: null, unrelated_since_tool: 0 });
    expect(await uiContents(auth, s.id)).toEqual(["u1", "u2", "u3"]);

    await patchSettings(auth, { ephemeral_ttl: 5 });
    await append(auth, s.id, { role: "tool", content: "out-c", ephemeral: true, tool: "grep" });
    const cleared: number[] = [];
    for (let i = 1; i <= 5; i++) cleared.push((await append(auth, s.id, { content: `v${i}` })).cleared);
    expect(cleared).toEqual([0, 0, 0, 0, 1]);
  });

  it("clears the previous tool's output at once when a message is about another tool", async () => {
    const auth = await newAuth();
    const s = await openSession(auth);
    await append(auth, s.id, { role: "tool", content: "ls-out", ephemeral: true, tool: "ls" });
    const switched = await append(auth, s.id, { role: "tool", content: "cat-out", ephemeral: true, tool: "cat" });
    expect(switched.cleared).toBe(1);
    expect(switched.state.active_tool).toBe("cat");
    expect(await uiContents(auth, s.id)).toEqual(["cat-out"]);

    const aboutOther = await append(auth, s.id, { content: "now about git", tool: "git" });
    expect(aboutOther.cleared).toBe(1);
    expect(aboutOther.state).toMatchObject({ ephemeral_pending: false, active_tool: null });
    expect(await uiContents(auth, s.id)).toEqual(["now about git"]);
  });

  it("completion: yes deletes the ephemeral messages and clears the state, no keeps them", async () => {
    const auth = await newAuth();
    const s = await openSession(auth);
    await append(auth, s.id, { role: "tool", content: "scratch", ephemeral: true, tool: "ls" });
    const closing = await append(auth, s.id, { role: "assistant", content: "All done.", tool: "ls", transaction_completed: true });
    expect(closing.transaction_completed).toBe(true);
    expect(closing.state.completion_pending).toBe(true);
    expect((await append(auth, s.id, { content: "plain", tool: "ls" })).transaction_completed).toBe(false);

    const no = await call("POST", `/sessions/${s.id}/complete`, { ...auth, body: { confirmed: false } });
    expect(no.status).toBe(200);
    expect(no.json).toMatchObject({ confirmed: false, cleared: 0, state: { completion_pending: false, ephemeral_pending: true } });
    expect(await uiContents(auth, s.id)).toEqual(["scratch", "All done.", "plain"]);

    const yes = await call("POST", `/sessions/${s.id}/complete`, { ...auth, body: { confirmed: true } });
    expect(yes.json).toMatchObject({ confirmed: true, cleared: 1, state: { ephemeral_pending: false, active_tool: null } });
    expect(await uiContents(auth, s.id)).toEqual(["All done.", "plain"]);
    expect(yes.json.state.messages_since_extraction).toBe(2);
  });
});

describe("the session object", () => {
  it("keeps its counters across a restart and a new stub", async () => {
    const auth = await newAuth();
    const s = await openSession(auth);
    await append(auth, s.id, { role: "tool", content: "out", ephemeral: true, tool: "ls" });
    await append(auth, s.id, { content: "a" });
    await append(auth, s.id, { content: "b" });
    const before = await stubOf(s.id).state();
    expect(before).toMatchObject({ messages_appended: 3, messages_since_extraction: 2, active_tool: "ls", unrelated_since_tool: 2 });

    await abortAllDurableObjects();
    const fresh = stubOf(s.id);
    expect(await fresh.state()).toEqual(before);
    const instanceIsNew = await runInDurableObject(fresh, (instance) => instance instanceof SessionObject);
    expect(instanceIsNew).toBe(true);
    // The counter carried over: one more unrelated message reaches the TTL of 3.
    const third = await append(auth, s.id, { content: "c" });
    expect(third.cleared).toBe(1);
    expect(third.sequence).toBe(4);
  });

  it("records extraction as due from its alarm and leaves the cursor", async () => {
    const auth = await newAuth({ extract_every: 3 });
    const s = await openSession(auth);
    await append(auth, s.id, { content: "1" });
    await append(auth, s.id, { content: "eph", ephemeral: true, tool: "t", role: "tool" });
    await append(auth, s.id, { content: "2", tool: "t" });
    expect((await stubOf(s.id).state()).extraction_scheduled).toBe(false);
    const third = await append(auth, s.id, { content: "3", tool: "t" });
    expect(third.state).toMatchObject({ messages_since_extraction: 3, extraction_scheduled: true, extraction_due: false });

    // The alarm is set for now: it may already run on its own, and is awaited either way.
    await runAlarmToEnd(s.id);
    const got = await call("GET", `/sessions/${s.id}`, auth);
    expect(got.json.state).toMatchObject({ extraction_due: true, extraction_scheduled: false, messages_since_extraction: 3 });
    expect(got.json.state.extraction_due_at).toMatch(/^\d{4}-/);
    expect(got.json.extracted_through_message_id).toBe(0);

    // While due, more messages keep counting and set no new alarm.
    const fourth = await append(auth, s.id, { content: "4", tool: "t" });
    expect(fourth.state).toMatchObject({ messages_since_extraction: 4, extraction_scheduled: false, extraction_due: true });
    expect((await storedState(s.id)).alarm).toBeNull();
  });

  it("answers not found to a caller naming another mind, and writes nothing", async () => {
    const auth = await newAuth();
    const other = await newAuth();
    const s = await openSession(auth);
    await append(auth, s.id, { content: "mine" });
    const result = await stubOf(s.id).append({ mindId: other.mind, sessionId: s.id }, { role: "user", content: "intruder" }, await callerOf(other.mind));
    expect(result).toMatchObject({ ok: false, code: "not_found" });
    const unknown = await stubOf("ses_missing").append({ mindId: auth.mind, sessionId: "ses_missing" }, { role: "user", content: "x" }, await callerOf(auth.mind));
    expect(unknown).toMatchObject({ ok: false, code: "not_found" });
    expect(await countRows("messages", "session_id", s.id)).toBe(1);
    expect((await storedState("ses_missing")).kv).toEqual({});
  });
});

describe("concurrency", () => {
  it("50 concurrent appends to one session: 50 rows, consecutive order, exact counters", async () => {
    const auth = await newAuth({ extract_every: 500 });
    const s = await openSession(auth);
    await append(auth, s.id, { role: "tool", content: "out", ephemeral: true, tool: "ls" });
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => append(auth, s.id, { content: `c${i}` })),
    );
    const elapsed = performance.now() - started;

    const rows = { results: await rowsEverywhere<{ id: number; content: string }>("select id, content from messages where session_id = ? order by id", s.id) };
    const bySequence = [...results].sort((a, b) => a.sequence - b.sequence);
    const orderHolds = bySequence.every((r, i) => i === 0 || r.message.id > bySequence[i - 1]!.message.id);
    expect(rows.results).toHaveLength(50);
    expect(bySequence.map((r) => r.sequence)).toEqual(Array.from({ length: 50 }, (_, i) => i + 2));
    expect(orderHolds).toBe(true);
    expect(rows.results.map((r) => r.content)).toEqual(bySequence.map((r) => r.message.content));
    // Exactly one append (the third unrelated one) cleared the tool output.
    expect(results.map((r) => r.cleared).filter((n) => n > 0)).toEqual([1]);
    expect(bySequence[2]!.cleared).toBe(1);
    expect(await stubOf(s.id).state()).toMatchObject({ messages_appended: 51, messages_since_extraction: 50, ephemeral_pending: false });
    console.log(`[figures] 50 concurrent appends to one session via HTTP: ${elapsed.toFixed(0)} ms, ${rows.results.length} rows, ids follow sequence: ${orderHolds}`);

    const caller = await callerOf(auth.mind);
    const direct = performance.now();
    const rpc = await Promise.all(
      Array.from({ length: 50 }, (_, i) => stubOf(s.id).append({ mindId: auth.mind, sessionId: s.id }, { role: "user", content: `d${i}` }, caller)),
    );
    const directMs = performance.now() - direct;
    const sequences = rpc.map((r) => (r.ok ? r.sequence : -1)).sort((a, b) => a - b);
    expect(sequences).toEqual(Array.from({ length: 50 }, (_, i) => i + 52));
    expect(await countRows("messages", "session_id", s.id)).toBe(100);
    console.log(`[figures] 50 concurrent appends to one session via stub RPC: ${directMs.toFixed(0)} ms, 100 rows in total`);
  });

  it("appends to 8 sessions in parallel land in their own sessions only", async () => {
    const auth = await newAuth({ extract_every: 500 });
    const sessions = await Promise.all(Array.from({ length: 8 }, () => openSession(auth)));
    const perSession = 20;
    const started = performance.now();
    await Promise.all(
      sessions.flatMap((s, k) => Array.from({ length: perSession }, (_, i) => append(auth, s.id, { content: `s${k}-${i}` }))),
    );
    const elapsed = performance.now() - started;
    for (const [k, s] of sessions.entries()) {
      const ui = await uiContents(auth, s.id);
      expect(ui).toHaveLength(perSession);
      expect(ui.every((c) => c.startsWith(`s${k}-`))).toBe(true);
      expect(new Set(ui).size).toBe(perSession);
      expect(await stubOf(s.id).state()).toMatchObject({ messages_appended: perSession, messages_since_extraction: perSession });
    }
    console.log(`[figures] 8 sessions x ${perSession} concurrent appends via HTTP: ${elapsed.toFixed(0)} ms, ${8 * perSession} rows, no row in a wrong session`);

    const caller = await callerOf(auth.mind);
    const direct = performance.now();
    const rpc = await Promise.all(
      sessions.flatMap((s, k) =>
        Array.from({ length: perSession }, (_, i) =>
          stubOf(s.id).append({ mindId: auth.mind, sessionId: s.id }, { role: "user", content: `r${k}-${i}` }, caller),
        ),
      ),
    );
    const directMs = performance.now() - direct;
    expect(rpc.every((r) => r.ok)).toBe(true);
    for (const [k, s] of sessions.entries()) {
      const ui = await uiContents(auth, s.id);
      expect(ui.filter((c) => c.startsWith(`r${k}-`))).toHaveLength(perSession);
      expect(ui.every((c) => c.startsWith(`s${k}-`) || c.startsWith(`r${k}-`))).toBe(true);
    }
    console.log(`[figures] 8 sessions x ${perSession} concurrent appends via stub RPC: ${directMs.toFixed(0)} ms, ${8 * perSession} more rows`);
    // 320 appends and their reads: past the default test time when the machine is busy.
  }, 120_000);
});
