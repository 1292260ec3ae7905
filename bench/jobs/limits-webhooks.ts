import { HANDLERS } from "../../src/jobs";
import { asInvocation, InvocationTally, takePassedLimits } from "../../src/limits/platform";
import { deleteMemory, storeMemory, updateMemory, verifyMemory } from "../../src/memory/memories";
import { addNote } from "../../src/notes/notes";
import { settleMessage } from "../../src/queue/consume";
import type { MindContext } from "../../src/tenancy/mind-context";
import { createWebhook, listAttempts, listWebhooks } from "../../src/webhooks/subscriptions";
import { newTenant } from "../../test/helpers";
import { inMind } from "../../test/support/deps";
import { type QueueDeps, workDeps } from "../../test/support/jobs";
import { PUBLIC_ADDRESS, standInReceivers } from "../../test/support/webhooks";
import type { LimitsInput, WebhooksResult } from "../lib/limits-data";
import { progress } from "./report";
import { figuresOf } from "./tallies";

// A mind's burst of changes delivered to its webhooks as deployed: every write wakes the delivery
// after its answer (a message on the queue, held in memory here), and the queue's consumer takes
// them 25 to a batch, one batch an invocation (src/index.ts' queue(): the messages of a batch
// handled side by side), each unit's receivers standing in (test/support/webhooks.ts). What each
// receiver saw is checked by `webhook-id`: every event once, in order.

/** Messages a queue batch hands the consumer at most (wrangler.toml's max_batch_size). */
const BATCH = 25;

/** One change of five kinds in turn: a memory stored, changed, verified, a note, the memory deleted. */
async function change(mindContext: MindContext, i: number, ids: Map<number, string>): Promise<void> {
  const group = Math.floor(i / 5);
  switch (i % 5) {
    case 0:
      ids.set(group, (await storeMemory(mindContext, { category: "fact", key: `fact_${group}`, content: `Fact number ${group}` })).memory.id);
      return;
    case 1:
      await updateMemory(mindContext, ids.get(group)!, { content: `Fact number ${group}, revised`, priority: "high" });
      return;
    case 2:
      await verifyMemory(mindContext, ids.get(group)!);
      return;
    case 3:
      await addNote(mindContext, { text: `Note number ${group}` });
      return;
    default:
      await deleteMemory(mindContext, ids.get(group)!);
  }
}

/** Batches of up to BATCH messages off the queue, each one invocation, until none is left; their tallies. */
async function consume(deps: QueueDeps): Promise<InvocationTally[]> {
  const tallies: InvocationTally[] = [];
  while (deps.queue.messages.length > 0) {
    const batch = deps.queue.messages.splice(0, BATCH);
    deps.queue.delays.splice(0, BATCH);
    const tally = new InvocationTally(`queue batch of ${batch.length}`);
    const settled = await asInvocation(tally, () => Promise.all(batch.map((message) => settleMessage(deps, HANDLERS, message, 1))));
    const failed = settled.find((s) => s.outcome?.status === "retry");
    if (failed) throw new Error(`a delivery unit failed: ${JSON.stringify(failed.outcome)}`);
    tallies.push(tally);
    if (tallies.length % 500 === 0) progress(`webhooks: ${tallies.length} batches consumed, ${deps.queue.messages.length} messages waiting`);
  }
  return tallies;
}

/** What delivery left: events still waiting, webhooks failing or disabled, and the distinct errors of their failed attempts. */
async function leftBehind(mindContext: MindContext): Promise<Pick<WebhooksResult, "pending" | "failing" | "disabled" | "errors">> {
  const hooks = await listWebhooks(mindContext);
  const attempts = await Promise.all(hooks.map((hook) => listAttempts(mindContext, hook.id)));
  const errors = new Set(attempts.flat().flatMap((a) => (a.ok ? [] : [a.error ?? `status ${a.status}`])));
  return {
    pending: hooks.reduce((n, hook) => n + hook.pending, 0),
    failing: hooks.filter((hook) => hook.failures > 0).length,
    disabled: hooks.filter((hook) => !hook.enabled).length,
    errors: [...errors].slice(0, 5),
  };
}

/**
 * `webhookChanges` changes in one mind with `webhooks` webhooks, each write waking the delivery;
 * then the queue consumed until nothing is left. Every receiver must have every event once, in order.
 */
export async function measureWebhooks(input: LimitsInput): Promise<WebhooksResult> {
  const net = standInReceivers();
  net.resolve("receiver.test", PUBLIC_ADDRESS);
  const seedStart = Date.now();
  const tenant = await newTenant();
  const deps = workDeps();
  const person = { kind: "human" as const, accountId: tenant.accountId };
  const urls = Array.from({ length: input.webhooks }, (_, i) => `https://receiver.test/bench/${i}`);
  for (const url of urls) {
    net.receiver(url);
    await createWebhook(await inMind(deps, { mindId: tenant.mind.id, principal: person }), { url });
  }
  // As a request's waitUntil: each write's wake goes on the queue once the write answered.
  const woken: Promise<unknown>[] = [];
  const mindContext = await inMind({ ...deps, defer: (work) => void woken.push(work) }, { mindId: tenant.mind.id, principal: person });
  const ids = new Map<number, string>();
  for (let i = 0; i < input.webhookChanges; i++) {
    await change(mindContext, i, ids);
    if ((i + 1) % 2_000 === 0) progress(`webhooks: ${i + 1} changes written`);
  }
  await Promise.all(woken);
  const seedMs = Date.now() - seedStart;
  const wakes = deps.queue.messages.length;

  takePassedLimits();
  const start = Date.now();
  const tallies = await consume(deps);
  const wallMs = Date.now() - start;
  const left = await leftBehind(await inMind(deps, { mindId: tenant.mind.id, principal: person }));
  const perReceiver = urls.map((url) => net.at(url).map((d) => ({ id: d.headers["webhook-id"]!, sequence: d.event.sequence as number })));
  const received = perReceiver.map((got) => got.length);
  return {
    ...figuresOf(tallies.map((tally) => ({ tally, objectCalls: 0 }))),
    changes: input.webhookChanges,
    webhooks: input.webhooks,
    wakes,
    received: received.reduce((a, b) => a + b, 0),
    duplicates: perReceiver.reduce((n, got) => n + got.length - new Set(got.map((d) => d.id)).size, 0),
    missing: perReceiver.reduce((n, got) => n + input.webhookChanges - new Set(got.map((d) => d.id)).size, 0),
    outOfOrder: perReceiver.reduce((n, got) => n + got.filter((d, i) => d.sequence !== i + 1).length, 0),
    ...left,
    seedMs,
    wallMs,
    passed: takePassedLimits().map((e) => e.message),
  };
}
