import { describe, expect, it, vi } from "vitest";
import { deliveryMessage, wakeDelivery } from "../../src/events/wake";
import { HANDLERS } from "../../src/jobs";
import { asInvocation, InvocationTally } from "../../src/limits/platform";
import { storeMemory } from "../../src/memory/memories";
import { addNote } from "../../src/notes/notes";
import { settleMessage as settleUnit } from "../../src/queue/consume";
import type { MindContext } from "../../src/tenancy/mind-context";
import { RETRY_WINDOW_MS, SUBREQUESTS_PER_UNIT } from "../../src/webhooks/deliver";
import { replayEvent } from "../../src/webhooks/replay";
import { sendEvent } from "../../src/webhooks/send";
import { newSigningSecret } from "../../src/webhooks/signing";
import { createWebhook, enableWebhook, getWebhook, listAttempts, listWebhooks, rotateSecret } from "../../src/webhooks/subscriptions";
import { newTenant } from "../helpers";
import { HOUR, inMind, manualClock } from "../support/deps";
import { drain, type QueueDeps, runJobNow, settleMessage, workDeps } from "../support/jobs";
import { rowsEverywhere } from "../support/shards";
import { type Answer, PUBLIC_ADDRESS, standInReceivers, verifiesWith } from "../support/webhooks";

// Delivery as the queue's consumer runs it, with a clock the test moves: retries with backoff, a
// webhook disabled after a day of failures while the mind's other webhooks go on, the secret's
// rotation, the delivery log and a replay. Writes wake nothing here (no waitUntil): the test
// sends the wake itself, as a write's deferred work would.

const net = standInReceivers();
net.resolve("receiver.test", PUBLIC_ADDRESS);

let serial = 0;

/** A mind with one webhook per answer script, and the deps (a clock, a queue in memory) to write and deliver with. */
async function hooked(...scripts: { answers?: Answer[]; then?: Answer }[]) {
  const t = await newTenant();
  const clock = manualClock("2026-03-02T08:00:00.000Z");
  const deps = workDeps({ clock });
  const person = { kind: "human" as const, accountId: t.accountId };
  const hooks: { id: string; url: string; secret: string }[] = [];
  for (const script of scripts) {
    const url = `https://receiver.test/retries/${++serial}`;
    net.receiver(url, script);
    const created = await createWebhook(await inMind(deps, { mindId: t.mind.id, principal: person }), { url });
    hooks.push({ id: created.id, url, secret: created.secret });
  }
  // Read again: the mind now has webhooks.
  const mindContext = await inMind(deps, { mindId: t.mind.id, principal: person });
  const deliver = async () => {
    await wakeDelivery(deps.queue, mindContext.mind);
    return drain(deps);
  };
  return { mindContext, deps, clock, hooks, deliver };
}

/** Moves the clock to the webhook's next attempt and delivers what is due then. */
async function atNextAttempt(h: { mindContext: MindContext; clock: ReturnType<typeof manualClock>; deliver: () => Promise<unknown> }, webhookId: string) {
  const webhook = await getWebhook(h.mindContext, webhookId);
  if (webhook.next_attempt_at === null) throw new Error("the webhook waits for no retry");
  h.clock.set(webhook.next_attempt_at);
  await h.deliver();
}

const remember = (mindContext: MindContext, key: string) => storeMemory(mindContext, { category: "fact", key, content: `Remembers ${key}` });

describe("retries", () => {
  it("a receiver that fails five times gets the event on the sixth attempt, once, the waits growing", async () => {
    const h = await hooked({ answers: [500, 500, 500, 500, 500] });
    const [hook] = h.hooks;
    await remember(h.mindContext, "tea");
    await h.deliver();
    const waits: number[] = [];
    for (let failed = 1; failed <= 5; failed++) {
      const webhook = await getWebhook(h.mindContext, hook!.id);
      expect(webhook).toMatchObject({ failures: failed, enabled: true, pending: 1 });
      waits.push(Date.parse(webhook.next_attempt_at!) - h.clock.now().getTime());
      await atNextAttempt(h, hook!.id);
    }
    const got = net.at(hook!.url);
    expect(got).toHaveLength(6);
    expect(new Set(got.map((d) => d.headers["webhook-id"])).size).toBe(1);
    for (const d of got) expect(await verifiesWith(hook!.secret, d)).toBe(true);
    // 5 s doubling, each ±20 %.
    waits.forEach((wait, i) => {
      expect(wait).toBeGreaterThanOrEqual(0.8 * 5_000 * 2 ** i);
      expect(wait).toBeLessThanOrEqual(1.2 * 5_000 * 2 ** i);
    });
    expect(await getWebhook(h.mindContext, hook!.id)).toMatchObject({ failures: 0, failing_since: null, next_attempt_at: null, pending: 0 });
    const log = await listAttempts(h.mindContext, hook!.id);
    expect(log.map((a) => [a.status, a.ok])).toEqual([[200, true], ...Array(5).fill([500, false])]);
    expect(log[1]!.error).toMatch(/^answered 500: receiver error 500 x+$/);
    expect(log[1]!.error!.length).toBeLessThanOrEqual(300);
    // Delivered once: nothing goes again.
    h.clock.advance(HOUR);
    await h.deliver();
    expect(net.at(hook!.url)).toHaveLength(6);
  });

  it("a receiver that never answers is disabled after the retry window, while the mind's other webhooks get every event at once", async () => {
    const h = await hooked({ then: "timeout" }, {});
    const [silent, healthy] = h.hooks;
    const keys: string[] = [];
    const failedAt = h.clock.now().getTime();
    for (let round = 0; round < 40; round++) {
      const key = `fact_${round}`;
      keys.push(key);
      await remember(h.mindContext, key);
      await h.deliver();
      // The healthy receiver has every event so far, in order, each once.
      expect(net.at(healthy!.url).map((d) => d.event.data.memory.key)).toEqual(keys);
      const webhook = await getWebhook(h.mindContext, silent!.id);
      if (!webhook.enabled) break;
      await atNextAttempt(h, silent!.id);
    }
    const disabled = await getWebhook(h.mindContext, silent!.id);
    expect(disabled).toMatchObject({ enabled: false, next_attempt_at: null });
    expect(disabled.disabled_reason).toMatch(/^failed for 24 hours, \d+ attempts in a row; the last: no answer within 10 s$/);
    expect(Date.parse(disabled.disabled_at!) - failedAt).toBeGreaterThanOrEqual(RETRY_WINDOW_MS);
    expect(Date.parse(disabled.disabled_at!) - failedAt).toBeLessThan(RETRY_WINDOW_MS + HOUR);
    const tries = net.at(silent!.url);
    // All on the first event, in about a dozen and a half tries over the day.
    expect(new Set(tries.map((d) => d.event.data.memory.key))).toEqual(new Set(["fact_0"]));
    expect(tries.length).toBeGreaterThan(10);
    expect(tries.length).toBeLessThan(25);
    expect(disabled.pending).toBe(keys.length);

    // Disabled, it is tried no more; turned on again by hand, it gets every event it missed, in order.
    h.clock.advance(2 * HOUR);
    await h.deliver();
    expect(net.at(silent!.url)).toHaveLength(tries.length);
    net.receiver(silent!.url);
    await enableWebhook(h.mindContext, silent!.id);
    await drain(h.deps);
    expect(net.at(silent!.url).slice(tries.length).map((d) => d.event.data.memory.key)).toEqual(keys);
    expect(await getWebhook(h.mindContext, silent!.id)).toMatchObject({ enabled: true, disabled_reason: null, failures: 0, pending: 0 });
  });

  it("a redirect is a failed attempt whose target is never asked, wherever it points", async () => {
    const targets = ["http://169.254.169.254/latest/meta-data/", "https://127.0.0.1/hook", "https://10.0.0.1/hook", "https://[::1]/hook", "https://receiver.test/elsewhere"];
    for (const target of targets) net.receiver(target);
    const h = await hooked(...targets.map((target, i) => ({ answers: [{ redirect: target, status: [301, 302, 303, 307, 308][i] }] })));
    await remember(h.mindContext, "redirected");
    await h.deliver();
    for (const [i, hook] of h.hooks.entries()) {
      const [attempt] = await listAttempts(h.mindContext, hook.id);
      expect(attempt, targets[i]).toMatchObject({ ok: false, status: [301, 302, 303, 307, 308][i] });
      expect(attempt!.error).toBe(`redirected to ${targets[i]}: redirects are not followed`);
    }
    for (const target of targets) expect(net.at(target), target).toEqual([]);
    // The first wait is 5 s ±20 %: a minute on, every one is tried again.
    h.clock.advance(60_000);
    await h.deliver();
    for (const hook of h.hooks) {
      expect(net.at(hook.url)).toHaveLength(2);
      expect(await getWebhook(h.mindContext, hook.id)).toMatchObject({ failures: 0, pending: 0 });
    }
  });
});

describe("order and bounds", () => {
  it("two units of one mind at once deliver each event once, in order, to each of ten webhooks", async () => {
    const h = await hooked(...Array.from({ length: 10 }, () => ({})));
    for (let i = 0; i < 30; i++) await (i % 3 === 0 ? addNote(h.mindContext, { text: `Note ${i}` }) : remember(h.mindContext, `key_${i}`));
    const message = deliveryMessage(h.mindContext.mind.id, h.mindContext.mind.shard);
    for (let round = 0; round < 20; round++) {
      // Two messages for the mind handled at the same time, as two queue batches might.
      await Promise.all([settleMessage(h.deps, message, 1), settleMessage(h.deps, message, 1)]);
      await drain(h.deps);
    }
    for (const hook of h.hooks) {
      const sequences = net.at(hook.url).map((d) => d.event.sequence);
      expect(sequences, hook.url).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    }
  });

  it("one unit spends at most its subrequests: the lookups of names it does not know, then a fair share of attempts each", async () => {
    const t = await newTenant();
    const clock = manualClock("2026-03-05T08:00:00.000Z");
    const deps = workDeps({ clock });
    const person = { kind: "human" as const, accountId: t.accountId };
    const urls = Array.from({ length: 10 }, (_, i) => `https://budget-${i}.test/hook`);
    for (const [i, url] of urls.entries()) {
      net.resolve(`budget-${i}.test`, PUBLIC_ADDRESS);
      net.receiver(url);
      await createWebhook(await inMind(deps, { mindId: t.mind.id, principal: person }), { url });
    }
    const mindContext = await inMind(deps, { mindId: t.mind.id, principal: person });
    for (let i = 0; i < 50; i++) await addNote(mindContext, { text: `Note ${i}` });
    // Past what this isolate keeps of the names' answers: the unit looks each up again (A and AAAA).
    clock.advance(10 * 60_000);
    const [lookups, received] = [net.lookups.length, net.received.length];
    const tally = new InvocationTally("one delivery unit");
    await asInvocation(tally, () => settleUnit(deps, HANDLERS, deliveryMessage(t.mind.id, mindContext.mind.shard), 1));
    // Its lookups and attempts, and the message that brings it round again for the rest.
    expect(tally.subrequests).toBe(31);
    // Leasing (2), reading each one's events (1 + 10), recording (10 + 3), keeping the unit's mark (1).
    expect(tally.d1Queries).toBe(27);
    expect(net.lookups.length - lookups).toBe(20);
    expect(net.received.length - received).toBe(10);
    expect(net.lookups.length - lookups + net.received.length - received).toBeLessThanOrEqual(SUBREQUESTS_PER_UNIT);
    for (const url of urls) expect(net.at(url).map((d) => d.event.sequence)).toEqual([1]);
    await drain(deps);
    for (const url of urls) expect(net.at(url).map((d) => d.event.sequence)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
  });

  it("an attempt is one request bounded by 10 s, whose timer goes with it, and of an endless answer only the first bytes are read", async () => {
    const target = { url: "https://receiver.test/bounded", secrets: [newSigningSecret()] };
    const event = { id: "evt_bounded", type: "note.created" as const, mind_id: "mind_bounded", agent: null, occurred_at: "2026-03-02T08:00:00.000Z", sequence: 1, data: {} };
    const clock = manualClock("2026-03-02T08:00:00.000Z");
    // A spy of its own over the stand-in, for this test's two answers.
    const fetched = vi.spyOn(globalThis, "fetch");
    // A receiver that never answers: the request ends when its signal does, after its 10 s (here cut to 50 ms).
    const realSetTimeout = globalThis.setTimeout;
    const timers = vi.spyOn(globalThis, "setTimeout").mockImplementation(((handler: () => void, ms?: number) =>
      realSetTimeout(handler, ms === 10_000 ? 50 : ms)) as typeof setTimeout);
    const cleared = vi.spyOn(globalThis, "clearTimeout");
    fetched.mockImplementationOnce((_input, init) => new Promise((_, reject) => init!.signal!.addEventListener("abort", () => reject(init!.signal!.reason))));
    expect(await sendEvent({ clock }, target, event)).toEqual({ status: null, ok: false, error: "no answer within 10 s" });
    expect(timers).toHaveBeenCalledWith(expect.any(Function), 10_000);
    expect(fetched.mock.lastCall![1]).toMatchObject({ redirect: "manual" });
    // An answer without end: read up to its bound, then cancelled, and the attempt's timer cleared at once.
    let pulled = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        pulled++;
        controller.enqueue(new TextEncoder().encode("y".repeat(256)));
      },
      cancel: () => {
        cancelled = true;
      },
    });
    fetched.mockImplementationOnce(async () => new Response(endless, { status: 503 }));
    const sent = await sendEvent({ clock }, target, event);
    expect(cleared).toHaveBeenCalledWith(timers.mock.results.at(-1)!.value);
    for (const spy of [timers, cleared, fetched]) spy.mockRestore();
    expect(sent).toMatchObject({ status: 503, ok: false });
    expect(sent.error).toBe(`answered 503: ${"y".repeat(300 - "answered 503: ".length)}`);
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThanOrEqual(8);
  });

  it("a webhook's pending events are its own mind's, of the types it wants", async () => {
    // Three minds: with two databases, two of them share one.
    const [busy, quiet, other] = [await hooked({}), await hooked({}), await hooked({})];
    const url = `https://receiver.test/retries/${++serial}`;
    net.receiver(url);
    const notesOnly = await createWebhook(busy.mindContext, { url, types: ["note.created"] });
    for (let i = 0; i < 3; i++) await remember(busy.mindContext, `busy_${i}`);
    await remember(quiet.mindContext, "quiet");
    for (let i = 0; i < 2; i++) await remember(other.mindContext, `other_${i}`);
    expect((await getWebhook(busy.mindContext, busy.hooks[0]!.id)).pending).toBe(3);
    expect((await getWebhook(quiet.mindContext, quiet.hooks[0]!.id)).pending).toBe(1);
    expect((await getWebhook(other.mindContext, other.hooks[0]!.id)).pending).toBe(2);
    expect((await getWebhook(busy.mindContext, notesOnly.id)).pending).toBe(0);
    expect((await listWebhooks(busy.mindContext)).map((w) => w.pending)).toEqual([3, 0]);
  });

  it("a wake that was lost is made good by the hourly sweep", async () => {
    const h = await hooked({});
    await remember(h.mindContext, "swept");
    expect(net.at(h.hooks[0]!.url)).toEqual([]);
    const { counts } = await runJobNow(h.deps as QueueDeps, "webhooks");
    expect(counts).toMatchObject({ enqueued: expect.any(Number) });
    expect(net.at(h.hooks[0]!.url).map((d) => d.event.type)).toEqual(["memory.created"]);
  });
});

describe("the secret, the log and a replay", () => {
  it("a rotated secret signs beside the old one for the grace period, then alone", async () => {
    const h = await hooked({});
    const [hook] = h.hooks;
    const rotated = await rotateSecret(h.mindContext, hook!.id, 1);
    expect(rotated.secret).not.toBe(hook!.secret);
    expect(rotated.previous_secret_until).toBe(new Date(h.clock.now().getTime() + HOUR).toISOString());
    await remember(h.mindContext, "during");
    await h.deliver();
    const during = net.at(hook!.url)[0]!;
    expect(during.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(await verifiesWith(hook!.secret, during)).toBe(true);
    expect(await verifiesWith(rotated.secret, during)).toBe(true);
    h.clock.advance(2 * HOUR);
    await remember(h.mindContext, "after");
    await h.deliver();
    const after = net.at(hook!.url)[1]!;
    expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(await verifiesWith(hook!.secret, after)).toBe(false);
    expect(await verifiesWith(rotated.secret, after)).toBe(true);
    // Stored sealed: neither secret is in the database.
    const stored = await rowsEverywhere<Record<string, string>>("select secret, previous_secret from webhooks where id = ?", hook!.id);
    expect(JSON.stringify(stored)).not.toContain(rotated.secret.slice(6));
    expect(JSON.stringify(stored)).not.toContain(hook!.secret.slice(6));
  });

  it("keeps the last 100 attempts of each webhook, and replays one event on demand", async () => {
    const h = await hooked({});
    const [hook] = h.hooks;
    for (let i = 0; i < 105; i++) await addNote(h.mindContext, { text: `Fact number ${i}` });
    await h.deliver();
    expect(net.at(hook!.url)).toHaveLength(105);
    const log = await listAttempts(h.mindContext, hook!.id);
    expect(log).toHaveLength(100);
    expect(log[0]!.sequence).toBe(105);
    expect(log.at(-1)!.sequence).toBe(6);
    const first = net.at(hook!.url)[0]!.event;
    const replayed = await replayEvent(h.mindContext, hook!.id, first.id);
    expect(replayed).toMatchObject({ event_id: first.id, sequence: 1, ok: true, status: 200 });
    const again = net.at(hook!.url).at(-1)!;
    expect(again.event).toEqual(first);
    expect(await verifiesWith(hook!.secret, again)).toBe(true);
    expect(await getWebhook(h.mindContext, hook!.id)).toMatchObject({ pending: 0, failures: 0 });
    await expect(replayEvent(h.mindContext, hook!.id, "evt_missing")).rejects.toThrow("event not found");
  });
});
