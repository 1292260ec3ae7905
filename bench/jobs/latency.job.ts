import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { it } from "vitest";
import { createDeps } from "../../src/deps";
import { createLimitedModel } from "../../src/llm/limited-model";
import { newHuman, newKey, newMind, unique } from "../../test/helpers";
import { HOUR, manualClock } from "../../test/support/deps";
import { memoryQueue, runCronWith, settleMessage } from "../../test/support/jobs";
import { foldingTurn } from "../../test/support/long-term";
import { scriptedModel, useObjectModel } from "../../test/support/scripted-model";
import { newPerson, standInTelegram, textUpdate, WEBHOOK_SECRET } from "../../test/support/telegram";
import type { LatencyInput, OperationResult, TripCounts } from "../lib/latency-data";
import { delayBindings, Ledger, NO_DELAYS, type Trip } from "./delayed-bindings";
import { fetchWorker, mcpClient, oauthProvider, send } from "./latency-client";
import { progress, report } from "./report";

const input = (env as unknown as { BENCH_INPUT: LatencyInput }).BENCH_INPUT;
const bindings = env as unknown as Record<string, unknown>;
// The bindings as they are, for the bench's own bookkeeping (a chat object's model, its queue).
const raw = { ...bindings } as unknown as Cloudflare.Env;
const ledger = new Ledger();
const wrapped = delayBindings(bindings, ledger);

interface Measured {
  ms: number;
  trips: Trip[];
}
interface Operation {
  name: string;
  run(): Promise<Measured>;
}

/** Work around a measurement (setting up, settling) runs without delays. */
async function unhurried<T>(work: () => Promise<T>): Promise<T> {
  const delays = ledger.delays;
  ledger.delays = NO_DELAYS;
  try {
    return await work();
  } finally {
    ledger.delays = delays;
  }
}

/** Times `work` from a clear ledger; `settle` (deferred work) runs after, unhurried and uncounted. */
async function timed(work: () => Promise<{ settle?: Promise<unknown> } | void>): Promise<Measured> {
  ledger.clear();
  const t0 = Date.now();
  const done = await work();
  const measured = { ms: Date.now() - t0, trips: [...ledger.trips] };
  if (done?.settle) await unhurried(() => done.settle!);
  return measured;
}

const rest = (name: string, method: string, path: () => string, token: () => string, body?: () => unknown): Operation => ({
  name,
  run: () =>
    timed(async () => {
      const res = await send(method, path(), token(), body?.());
      return { settle: res.settled };
    }),
});

function countsOf(trips: Trip[]): TripCounts {
  const counts: TripCounts = { d1Directory: 0, d1Shard: 0, d1Primary: 0, d1Replica: 0, objects: {}, kv: 0, queue: 0, ai: 0, vectorize: 0, rateLimit: 0 };
  for (const t of trips) {
    if (t.kind === "D1") {
      if (t.target === "directory") counts.d1Directory++;
      else counts.d1Shard++;
      if (t.replica) counts.d1Replica++;
      else counts.d1Primary++;
    } else if (t.kind === "DO") counts.objects[t.target] = (counts.objects[t.target] ?? 0) + 1;
    else if (t.kind === "KV") counts.kv++;
    else if (t.kind === "Queue") counts.queue++;
    else if (t.kind === "AI") counts.ai++;
    else if (t.kind === "Vectorize") counts.vectorize++;
    else counts.rateLimit++;
  }
  return counts;
}

/** One warm-up run, then the repetitions, the settings interleaved so drift on the machine touches each alike. */
async function measure(op: Operation): Promise<OperationResult> {
  await unhurried(() => op.run());
  const wall: Record<string, number[]> = Object.fromEntries(Object.keys(input.settings).map((s) => [s, []]));
  let trips: TripCounts | null = null;
  for (let rep = 0; rep < input.repetitions; rep++) {
    for (const [name, delays] of Object.entries(input.settings)) {
      ledger.delays = delays;
      const measured = await op.run();
      wall[name]!.push(measured.ms);
      if (delays.replica !== null && trips === null) trips = countsOf(measured.trips);
    }
  }
  ledger.delays = NO_DELAYS;
  progress(`${op.name}: ${JSON.stringify(Object.fromEntries(Object.entries(wall).map(([k, v]) => [k, v])))}`);
  return { name: op.name, trips: trips ?? countsOf([]), wall };
}

/** A mind with a key, a few memories, a note and a session with a message: what warm requests read. */
async function warmMind() {
  const human = await newHuman();
  const mind = await newMind(human.token);
  const key = (await newKey(human.token, mind.id)).key;
  for (const content of ["Drinks green tea", "Works on edgemind", "Takes the train to work"]) {
    await send("POST", "/memory", key, { category: "fact", key: unique("k").replace(/-/g, "_"), content });
  }
  await send("POST", "/notes", key, { text: "likes tea in the morning" });
  const session = await send("POST", "/sessions", key, { task_name: unique("task") });
  const sessionId = String(session.json.id);
  await send("POST", `/sessions/${sessionId}/messages`, key, { role: "user", content: "hello, I drink tea" });
  return { human, mind, key, sessionId };
}

/** One consolidation unit of a mind with a waiting note, produced by the hourly run and settled with the product's handlers. */
function consolidationUnit(humanToken: string): Operation {
  const clock = manualClock(new Date(Date.now() + 2 * HOUR));
  const model = scriptedModel([foldingTurn]).model;
  return {
    name: "queue consolidation unit (settleMessage)",
    run: async () => {
      const message = await unhurried(async () => {
        const mind = await newMind(humanToken);
        const key = (await newKey(humanToken, mind.id)).key;
        await send("POST", "/notes", key, { text: unique("prefers window seats") });
        clock.advance(HOUR);
        const queue = memoryQueue();
        await runCronWith({ ...createDeps(env, { clock, semantic: false }), queue }, "0 * * * *");
        const mine = queue.messages.find((m) => JSON.stringify(m).includes(mind.id));
        if (!mine) throw new Error(`the hourly run sent no unit for the mind: ${JSON.stringify(queue.messages).slice(0, 300)}`);
        return mine;
      });
      const deps = { ...createDeps(env, { clock, semantic: false }), queue: memoryQueue(), model: () => createLimitedModel(env, model) };
      return timed(async () => {
        const settled = await settleMessage(deps, message, 1);
        if (!settled.ack) throw new Error(`the unit did not settle: ${JSON.stringify(settled)}`);
      });
    },
  };
}

/**
 * A Telegram update, timed twice: to the bot's call to the model (a scripted model notes when it
 * is called and what had been counted by then), and to the reply's sendMessage (the stand-in Bot
 * API notes when the answer reaches it): the whole turn, the model taking no time.
 */
async function telegramTurns(): Promise<Operation[]> {
  const telegram = standInTelegram();
  const person = newPerson();
  // Stubs and promises are not carried from the chat's object back into the test's context: fresh stubs, a polled note.
  const chat = () => raw.TELEGRAM_CHATS.get(raw.TELEGRAM_CHATS.idFromName(String(person.chat.id)));
  let called: { at: number; trips: number } | null = null;
  const answer = "Noted: you like tea.";
  const model = scriptedModel([
    () => {
      called ??= { at: Date.now(), trips: ledger.trips.length };
      return answer;
    },
  ]).model;
  await runInDurableObject(chat(), (instance) => useObjectModel(instance, model));
  const pause = () => new Promise((resolve) => setTimeout(resolve, 1));
  const settledChat = async () => {
    for (let i = 0; i < 20_000 && (await chat().pending()) > 0; i++) await pause();
  };
  const post = (text: string) =>
    fetchWorker(
      new Request("https://edgemind.test/telegram/webhook", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET },
        body: JSON.stringify(textUpdate(person, text)),
      }),
    );
  /** The answer's sendMessage after `since`, with the trips counted when it was seen (polled each millisecond). */
  const replied = (since: number) => {
    const sent = telegram.to(person.chat.id, "sendMessage").find((c) => c.at >= since && c.payload.text === answer);
    return sent ? { at: sent.at, trips: ledger.trips.length } : null;
  };
  // The person's first message builds the chat's identity; the turns measured come after it.
  await (await post("Hello")).settled;
  await settledChat();
  const turn = (name: string, reached: (t0: number) => { at: number; trips: number } | null): Operation => ({
    name,
    run: async () => {
      called = null;
      ledger.clear();
      const t0 = Date.now();
      const res = await post(`I drink tea, ${unique("cups")}`);
      if (res.status !== 200) throw new Error(`webhook: ${res.status}`);
      const deadline = Date.now() + 60_000;
      let at = reached(t0);
      while (at === null && Date.now() < deadline) {
        await pause();
        at = reached(t0);
      }
      if (at === null) throw new Error(`${name}: never reached`);
      const measured = { ms: at.at - t0, trips: ledger.trips.slice(0, at.trips) };
      await unhurried(async () => {
        await res.settled;
        await settledChat();
      });
      return measured;
    },
  });
  return [turn("Telegram update → the model call", () => called), turn("Telegram turn: webhook → sendMessage", replied)];
}

/** Directory statements over many warm requests spread over `keys` keys, ten to a mind. */
async function directoryLoad() {
  const keys: string[] = [];
  // Ten keys to an account: each account's writes stay within production's limit per account.
  for (let m = 0; m < Math.ceil(input.directory.keys / 10); m++) {
    const human = await newHuman();
    const mind = await newMind(human.token);
    for (let k = 0; k < 10 && keys.length < input.directory.keys; k++) keys.push((await newKey(human.token, mind.id)).key);
  }
  const ipOf = (i: number) => `10.1.${Math.floor(i / 250)}.${i % 250}`;
  for (const [i, key] of keys.entries()) await (await send("GET", "/memory/recall", key, undefined, ipOf(i))).settled;
  ledger.clear();
  const t0 = Date.now();
  for (let i = 0; i < input.directory.requests; i++) {
    const k = (i * 37) % keys.length;
    await (await send("GET", "/memory/recall", keys[k]!, undefined, ipOf(k))).settled;
  }
  const trips = ledger.trips.filter((t) => t.kind === "D1");
  return {
    keys: keys.length,
    requests: input.directory.requests,
    statements: trips.reduce((n, t) => n + t.directoryStatements, 0),
    trips: trips.filter((t) => t.directoryStatements > 0).length,
    wallMs: Date.now() - t0,
  };
}

it("latency: each operation's round trips and wall time with every binding a fixed distance away", async () => {
  progress(`wrapped: ${JSON.stringify(wrapped)}`);
  const { human, mind, key, sessionId } = await warmMind();
  const oauth = await oauthProvider(human.token, mind.id);
  const keyClient = await mcpClient({ token: key });
  const oauthClient = await mcpClient({ provider: oauth });
  const mcpSearch = (name: string, client: typeof keyClient): Operation => ({
    name,
    run: () =>
      timed(async () => {
        const result = await client.callTool({ name: "memory_search", arguments: { q: "tea" } });
        if (result.isError) throw new Error(JSON.stringify(result));
      }),
  });
  const k = () => key;
  const operations: Operation[] = [
    rest("POST /memory", "POST", () => "/memory", k, () => ({ category: "fact", key: unique("k").replace(/-/g, "_"), content: "Takes the train" })),
    rest("GET /memory/search", "GET", () => "/memory/search?q=tea", k),
    rest("GET /memory/recall", "GET", () => "/memory/recall", k),
    rest("POST /notes", "POST", () => "/notes", k, () => ({ text: unique("prefers trains") })),
    rest("GET /cold", "GET", () => "/cold", k),
    rest("POST /sessions/:id/messages", "POST", () => `/sessions/${sessionId}/messages`, k, () => ({ role: "user", content: unique("more tea") })),
    rest("GET /sessions/:id/context", "GET", () => `/sessions/${sessionId}/context`, k),
    mcpSearch("MCP memory_search (mind key)", keyClient),
    mcpSearch("MCP memory_search (OAuth token)", oauthClient),
    consolidationUnit(human.token),
    ...(await telegramTurns()),
  ];
  const results: OperationResult[] = [];
  for (const op of operations) results.push(await measure(op));
  await keyClient.close();
  await oauthClient.close();
  const directory = await directoryLoad();
  progress(`directory: ${JSON.stringify(directory)}`);
  report({ wrapped, operations: results, directory });
});
