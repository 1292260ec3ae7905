import { createExecutionContext, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createShards } from "../../src/db/shards";
import { createDeps, type Deps } from "../../src/deps";
import worker from "../../src/index";
import { RoundTrips, recordingD1 } from "../support/recording-d1";
import { scriptedModel } from "../support/scripted-model";
import { rowsEverywhere } from "../support/shards";
import { chatObject, newPerson, type Person, send, settled, standInTelegram, textUpdate, useModel, WEBHOOK_SECRET } from "../support/telegram";

standInTelegram();

// A Telegram text update up to the moment the model is called, counted, not timed: every D1
// statement or batch is a round trip in production and every Durable Object call a hop. The
// webhook, the chat's object and the session's object all reach D1 through one counter here.

/** What one turn cost when the model was called. */
interface Cost {
  serial: number;
  trips: number;
  objectCalls: number;
}

/** A namespace whose stubs count every method called on them. */
function countingNamespace<T extends object>(namespace: T, calls: { n: number }): T {
  const stub = (real: object) =>
    new Proxy(real, {
      get(target, prop) {
        const stubOf = target as Record<string | symbol, (...a: unknown[]) => unknown>;
        if (typeof prop !== "string" || prop === "then" || typeof stubOf[prop] !== "function") return stubOf[prop];
        return (...args: unknown[]) => {
          calls.n++;
          return stubOf[prop]!(...args);
        };
      },
    });
  return new Proxy(namespace, {
    get(target, prop) {
      const value: unknown = (target as Record<string | symbol, unknown>)[prop];
      if (prop === "get") return (...args: unknown[]) => stub((value as (...a: unknown[]) => object).apply(target, args));
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

interface Counters {
  trips: RoundTrips;
  calls: { n: number };
}

/** Every D1 binding of the deployment seen through the one counter. */
function countedEnv(counters: Counters): Env {
  const wrapped: Record<string, unknown> = { ...env };
  for (const name of createShards(env).names) wrapped[name] = recordingD1(wrapped[name] as D1Database, [], counters.trips);
  wrapped.TELEGRAM_CHATS = countingNamespace(env.TELEGRAM_CHATS, counters.calls);
  return wrapped as unknown as Env;
}

/** An object's deps counting its D1 round trips and its calls to session objects. */
async function countObject(stub: DurableObjectStub, counters: Counters): Promise<void> {
  const counted = createDeps(env, { wrap: (d1) => recordingD1(d1, [], counters.trips), semantic: false });
  await runInDurableObject(stub, (instance) => {
    const target = instance as unknown as { deps: Deps };
    target.deps = { ...target.deps, directory: counted.directory, shards: counted.shards, sessionObjects: countingNamespace(env.SESSIONS, counters.calls) };
  });
}

async function sessionsOf(p: Person): Promise<string[]> {
  const row = await env.DB.prepare("select mind_id from telegram_chats where telegram_chat_id = ?").bind(p.chat.id).first<{ mind_id: string }>();
  return (await rowsEverywhere<{ id: string }>("select id from sessions where mind_id = ?", row!.mind_id)).map((s) => s.id);
}

/** Posts a text update through the Worker's fetch with every binding counted, and waits for the chat. */
async function countedTurn(p: Person, text: string, counters: Counters): Promise<void> {
  await countObject(chatObject(p.chat.id), counters);
  for (const id of await sessionsOf(p)) await countObject(env.SESSIONS.get(env.SESSIONS.idFromName(id)), counters);
  const request: Request<unknown, IncomingRequestCfProperties> = new Request("https://edgemind.test/telegram/webhook", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": WEBHOOK_SECRET },
    body: JSON.stringify(textUpdate(p, text)),
  });
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, countedEnv(counters), ctx);
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(200);
  await settled(p.chat.id);
}

/** A person whose chat has had one turn (identity, mind, session made), with a model that notes the cost when called. */
async function warmChat(memory: string | null): Promise<{ p: Person; counters: Counters; costs: Cost[]; prompts: string[]; systems: string[] }> {
  const p = newPerson();
  const counters: Counters = { trips: new RoundTrips(), calls: { n: 0 } };
  const costs: Cost[] = [];
  const noteCost = () => {
    costs.push({ serial: counters.trips.serial, trips: counters.trips.all.length, objectCalls: counters.calls.n });
    return `Answer ${costs.length}.`;
  };
  const model = scriptedModel([noteCost]);
  // No shared limiter: its admission is part of calling the model, not of reaching it.
  await useModel(p.chat.id, model.model, { LLM_REQUESTS_PER_MINUTE: "0", LLM_TOKENS_PER_MINUTE: "0" });
  await send(p, textUpdate(p, "hello"));
  // A memory for the turn's search to find: its later round trips (the rows, the feedback) are counted too.
  if (memory !== null) await send(p, textUpdate(p, `/remember ${memory}`));
  costs.length = 0;
  return { p, counters, costs, prompts: model.prompts, systems: model.systems };
}

describe("a Telegram text update before the model", () => {
  it("reaches the model in four serial D1 round trips and two Durable Object calls, the dialogue in its context", async () => {
    const { p, counters, costs, prompts } = await warmChat(null);
    await countedTurn(p, "what do I drink?", counters);
    expect(costs).toHaveLength(1);
    expect(costs[0]).toMatchObject({ serial: TURN_SERIAL_TRIPS, objectCalls: TURN_OBJECT_CALLS });
    // The model was given the dialogue the append handed back: the first turn and this message.
    expect(prompts.at(-1)).toContain("user: hello");
    expect(prompts.at(-1)).toContain("assistant: Answer");
    expect(prompts.at(-1)).toContain("user: what do I drink?");
  });

  it("with memory to search, the search's later round trips are all that is added", async () => {
    const { p, counters, costs, prompts, systems } = await warmChat("I drink green tea");
    await countedTurn(p, "what do I drink?", counters);
    expect(costs).toHaveLength(1);
    expect(costs[0]).toMatchObject({ serial: SEARCHED_TURN_SERIAL_TRIPS, objectCalls: TURN_OBJECT_CALLS });
    expect(prompts.at(-1)).toContain("user: what do I drink?");
    expect(systems.at(-1)).toContain("green tea");
  });
});

/** The D1 bookmark the chat's object keeps of its mind's database, or null. */
async function keptBookmark(p: Person): Promise<string | null> {
  return runInDurableObject(chatObject(p.chat.id), (_, state) => state.storage.kv.get<{ bookmark: string }>("state:position")?.bookmark ?? null);
}

describe("a Telegram turn's reads", () => {
  // The chat's object and the session's open their sessions through the one counter: the turn's
  // own reads are the session started before the session object's `first-primary` append.
  const turnStarts = (counters: Counters) => counters.trips.starts.filter((start) => start !== "first-primary");

  it("start at the chat's kept position, which each turn moves past the message it appended", async () => {
    const { p, counters, prompts } = await warmChat(null);
    const first = await keptBookmark(p);
    expect(first).not.toBeNull();
    await countedTurn(p, "what do I drink?", counters);
    expect(turnStarts(counters)).toEqual([first]);
    const second = await keptBookmark(p);
    expect(second! > first!).toBe(true);
    counters.trips.clear();
    await countedTurn(p, "and what do I eat?", counters);
    expect(turnStarts(counters)).toEqual([second]);
    // Read from there, the dialogue holds the turn before.
    expect(prompts.at(-1)).toContain("user: what do I drink?");
  });

  it("start at any replica when the chat keeps no position, and only the appends start at the primary", async () => {
    const { p, counters } = await warmChat(null);
    await runInDurableObject(chatObject(p.chat.id), (_, state) => state.storage.kv.delete("state:position"));
    await countedTurn(p, "what do I drink?", counters);
    expect(counters.trips.starts).toEqual(["first-unconstrained", "first-primary", "first-primary"]);
    expect(await keptBookmark(p)).not.toBeNull();
  });
});

/**
 * The webhook's claim; the mind beside the chat's row and its active session; the append (which
 * hands back the dialogue) beside memory, notes, cold memory and the search's vocabulary; the
 * search's rows.
 */
const TURN_SERIAL_TRIPS = 4;
/**
 * The search's rows and its feedback's vocabulary after its first lookup. Counted as begun after
 * them, the append (one object hop later) is noted one trip deeper than it depends on.
 */
const SEARCHED_TURN_SERIAL_TRIPS = 6;
/** The webhook hands the update to the chat's object; the chat's object appends through the session's. */
const TURN_OBJECT_CALLS = 2;
