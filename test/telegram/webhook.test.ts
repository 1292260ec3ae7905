import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { readTelegramConfig } from "../../src/config";
import { DEFAULT_RETENTION } from "../../src/db/prune";
import { TELEGRAM_RETENTION_STEPS } from "../../src/db/telegram-updates";
import { RETENTION_STEPS } from "../../src/jobs/retention";
import { deleteMind } from "../../src/portability/erase";
import { MAX_ATTEMPTS } from "../../src/telegram/chat-object";
import { ADMIN_TOKEN, call } from "../helpers";
import { testDeps } from "../support/deps";
import { scriptedModel } from "../support/scripted-model";
import { rowsEverywhere } from "../support/shards";
import {
  chatObject,
  inGroup,
  newPerson,
  nextId,
  postUpdate,
  send,
  sentTexts,
  serverError,
  settled,
  standInTelegram,
  textUpdate,
  tooManyRequests,
  useModel,
} from "../support/telegram";

const telegram = standInTelegram();

const claimsOf = async (updateId: number) =>
  (await env.DB.prepare("select count(*) as n from telegram_updates where update_id = ?").bind(updateId).first<{ n: number }>())!.n;
const accountsOf = async (userId: number) =>
  (await env.DB.prepare("select count(*) as n from accounts where telegram_user_id = ?").bind(userId).first<{ n: number }>())!.n;
const userMessagesOf = async (chatId: number) =>
  rowsEverywhere<{ role: string; content: string }>(
    `select m.role, m.content from messages m join chats c on c.active_session_id = m.session_id
     where c.kind = 'telegram' and c.external_id = ? order by m.id`,
    String(chatId),
  );
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the webhook's secret", () => {
  it.each([
    ["a wrong secret", "not-the-secret-0123456789"],
    ["no secret", null],
    ["an empty secret", ""],
  ])("%s: 401 and no work done", async (_case, secret) => {
    const p = newPerson();
    const update = textUpdate(p, "/start");
    const res = await postUpdate(update, secret);
    expect(res.status).toBe(401);
    expect(res.json.error.code).toBe("unauthorized");
    await sleep(200);
    expect(await claimsOf(update.update_id)).toBe(0);
    expect(await accountsOf(p.user.id)).toBe(0);
    expect(telegram.to(p.chat.id)).toEqual([]);
  });
});

describe("malformed updates", () => {
  it("are acknowledged, recorded and skipped: never claimed and then failed, never retried", async () => {
    const p = newPerson();
    const model = scriptedModel(["never asked"]);
    await useModel(p.chat.id, model.model);
    const numeric = textUpdate(p, "placeholder") as any;
    numeric.message.text = 42;
    const cases: unknown[] = [
      { update_id: nextId(), message: {} },
      { update_id: nextId(), message: { message_id: 1, chat: { id: "not a number", type: "private" } } },
      numeric,
      { update_id: nextId(), callback_query: { id: 5, from: {} } },
      // A lone surrogate is not text, here as in every JSON body: in a message, a name or a title.
      textUpdate(p, "remember lone \ud800 text"),
      textUpdate(newPerson("en", "Lone\ud800"), "/start"),
      textUpdate(inGroup(newPerson(), "Team \udc00"), "/start"),
    ];
    for (const update of cases) {
      const res = await postUpdate(update);
      expect(res.status, JSON.stringify(update)).toBe(200);
      expect(res.json).toMatchObject({ ok: true, ignored: "malformed" });
      const updateId = (update as { update_id: number }).update_id;
      expect(await claimsOf(updateId)).toBe(1);
      expect((await postUpdate(update)).json).toMatchObject({ ok: true });
    }
    await sleep(300);
    expect(model.prompts).toEqual([]);
    expect(telegram.to(p.chat.id)).toEqual([]);
    // The chat still answers its next well-formed message.
    await send(p, textUpdate(p, "/help"));
    expect(telegram.to(p.chat.id, "sendMessage")).toHaveLength(1);
  });
});

describe("names from Telegram", () => {
  const mindNameOf = async (chatId: number) =>
    (await env.DB.prepare("select m.name from telegram_chats t join minds m on m.id = t.mind_id where t.telegram_chat_id = ?").bind(chatId).first<{ name: string }>())?.name;

  it("name a chat's mind as any mind's name is bound: one line, no control characters, at most 100 characters, a surrogate pair whole", async () => {
    const person = newPerson("en", "Ann\u0007\nMarie \ud83d\ude00");
    await send(person, textUpdate(person, "/start"));
    expect(await mindNameOf(person.chat.id)).toBe("Telegram: Ann Marie \ud83d\ude00");
    const group = inGroup(newPerson(), `${"x".repeat(83)}\ud83d\ude00${"y".repeat(40)}`);
    await send(group, textUpdate(group, "/start"));
    const name = (await mindNameOf(group.chat.id))!;
    expect(name).toBe(`Telegram group: ${"x".repeat(83)}`);
    expect(name.length).toBeLessThanOrEqual(100);
  });
});

describe("updates that can never be handled are acknowledged, not refused (Telegram would retry a refusal forever)", () => {
  it("a body without a valid update_id, or not JSON at all: 200, skipped, nothing done", async () => {
    for (const body of [{ hello: "world" }, { update_id: -1, message: {} }, { update_id: "12", message: {} }, { update_id: 1.5 }]) {
      const res = await postUpdate(body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(res.json).toMatchObject({ ok: true, ignored: "malformed" });
    }
    const raw = await call("POST", "/telegram/webhook", { rawBody: "not json {", headers: { "X-Telegram-Bot-Api-Secret-Token": env.TELEGRAM_WEBHOOK_SECRET!, "Content-Type": "application/json" } });
    expect(raw.status).toBe(200);
    expect(raw.json).toMatchObject({ ok: true, ignored: "malformed" });
  });

  it("an update over 64 KB: 200, its update_id claimed so a re-delivery is dropped too, never handed to the chat", async () => {
    const p = newPerson();
    const model = scriptedModel(["never asked"]);
    await useModel(p.chat.id, model.model);
    const update = textUpdate(p, "x".repeat(70 * 1024));
    const res = await postUpdate(update);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: true, ignored: "too_large" });
    expect(await claimsOf(update.update_id)).toBe(1);
    // Sent in chunks, with no length declared, the same.
    const chunked = textUpdate(p, "y".repeat(200 * 1024));
    const bytes = new TextEncoder().encode(JSON.stringify(chunked));
    let at = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (at >= bytes.length) return controller.close();
        controller.enqueue(bytes.subarray(at, (at += 8192)));
      },
    });
    const answer = await exports.default.fetch(
      new Request("https://edgemind.test/telegram/webhook", { method: "POST", body: stream, headers: { "X-Telegram-Bot-Api-Secret-Token": env.TELEGRAM_WEBHOOK_SECRET!, "Content-Type": "application/json" } }),
    );
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ ok: true, ignored: "too_large" });
    expect(at).toBeGreaterThanOrEqual(bytes.length);
    expect(await claimsOf(chunked.update_id)).toBe(1);
    await sleep(300);
    expect(model.prompts).toEqual([]);
    expect(telegram.to(p.chat.id)).toEqual([]);
  });
});

describe("idempotency and order", () => {
  it("the same update posted 10 times concurrently is handled once", async () => {
    const p = newPerson();
    const update = textUpdate(p, "only once");
    const answers = await Promise.all(Array.from({ length: 10 }, () => postUpdate(update)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(answers.filter((a) => a.json.duplicate === true)).toHaveLength(9);
    await settled(p.chat.id);
    expect(await claimsOf(update.update_id)).toBe(1);
    expect(sentTexts(telegram, p.chat.id)).toHaveLength(1);
    expect(await userMessagesOf(p.chat.id)).toEqual([{ role: "user", content: "only once" }]);
  });

  it("a chat's updates are answered in the order they came", async () => {
    const p = newPerson();
    const model = scriptedModel([(prompt) => `re: ${prompt.trim().split("\n").at(-1)!.replace(/^user: /, "")}`]);
    await useModel(p.chat.id, model.model);
    for (let i = 1; i <= 5; i++) expect((await postUpdate(textUpdate(p, `message ${i}`))).status).toBe(200);
    await settled(p.chat.id);
    expect(sentTexts(telegram, p.chat.id)).toEqual([1, 2, 3, 4, 5].map((i) => `re: message ${i}`));
  });
});

describe("a slow model", () => {
  it("the webhook answers at once; the reply arrives later, once", { timeout: 90_000 }, async () => {
    // The model answers only when the test lets it: every post must be acknowledged before that.
    let answering = false;
    const people = Array.from({ length: 20 }, () => newPerson());
    for (const p of people) {
      await useModel(p.chat.id, scriptedModel([async () => {
        while (!answering) await sleep(50);
        return "slow answer";
      }]).model);
    }
    const acks: number[] = [];
    for (const p of people) {
      const t0 = performance.now();
      const res = await postUpdate(textUpdate(p, "take your time"));
      acks.push(performance.now() - t0);
      expect(res.status).toBe(200);
    }
    for (const p of people) expect(sentTexts(telegram, p.chat.id)).toEqual([]);
    answering = true;
    const sorted = [...acks].sort((a, b) => a - b);
    const median = (sorted[9]! + sorted[10]!) / 2;
    console.log(
      `[figures] webhook acknowledgement while the model has not answered, 20 posts: median ${median.toFixed(1)} ms, max ${sorted[19]!.toFixed(1)} ms`,
    );
    for (const p of people) await settled(p.chat.id, 60_000);
    for (const p of people) expect(sentTexts(telegram, p.chat.id)).toEqual(["slow answer"]);
  });
});

describe("failures", () => {
  it("a failed model call is retried; the message is recorded once and the reply sent once", async () => {
    const p = newPerson();
    const model = scriptedModel([new Error("provider unavailable"), "recovered"]);
    await useModel(p.chat.id, model.model);
    await send(p, textUpdate(p, "are you there?"));
    expect(model.prompts).toHaveLength(2);
    expect(sentTexts(telegram, p.chat.id)).toEqual(["recovered"]);
    expect(await userMessagesOf(p.chat.id)).toEqual([
      { role: "user", content: "are you there?" },
      { role: "assistant", content: "recovered" },
    ]);
  });

  it("when a later part of a reply fails, the retry sends only what was not sent, without asking the model again", async () => {
    const p = newPerson();
    const model = scriptedModel([`${"first part ".repeat(300)}\n\n${"second part ".repeat(300)}`]);
    await useModel(p.chat.id, model.model);
    await send(p, textUpdate(p, "/start"));
    const before = telegram.to(p.chat.id, "sendMessage").length;
    telegram.failNext("sendMessage", { status: 200, body: { ok: true, result: { message_id: 1, date: 0, chat: { id: p.chat.id, type: "private" }, text: "" } } }, serverError);
    await send(p, textUpdate(p, "write a lot"));
    const sends = telegram.to(p.chat.id, "sendMessage").slice(before).map((c) => c.payload.text.split(" ")[0]);
    expect(sends).toEqual(["first", "second", "second"]);
    expect(model.prompts).toHaveLength(1);
  });

  it("the reply goes out while the answer is appended: an append that fails is retried alone, the reply sent once", async () => {
    const p = newPerson();
    const model = scriptedModel(["Hello!", "Green tea."]);
    await useModel(p.chat.id, model.model);
    await send(p, textUpdate(p, "hi"));
    const [session] = await rowsEverywhere<{ id: string }>("select active_session_id as id from chats where kind = 'telegram' and external_id = ?", String(p.chat.id));
    const stub = env.SESSIONS.get(env.SESSIONS.idFromName(session!.id));
    // The session's object as the runtime made it: its first append of an answer waits for the reply to be sent, then fails.
    const prototype = await runInDurableObject(stub, (instance) => Object.getPrototypeOf(instance) as { append: (...args: unknown[]) => Promise<unknown> });
    const original = prototype.append;
    let replyBeforeTheAppendEnded: boolean | null = null;
    prototype.append = async function (this: unknown, ...args: unknown[]) {
      if ((args[1] as { role: string }).role === "assistant" && replyBeforeTheAppendEnded === null) {
        for (let i = 0; i < 300 && !sentTexts(telegram, p.chat.id).includes("Green tea."); i++) await sleep(10);
        replyBeforeTheAppendEnded = sentTexts(telegram, p.chat.id).includes("Green tea.");
        throw new Error("injected: the answer's append failed");
      }
      return original.apply(this, args);
    };
    try {
      await send(p, textUpdate(p, "what do I drink?"));
    } finally {
      prototype.append = original;
    }
    expect(replyBeforeTheAppendEnded).toBe(true);
    expect(sentTexts(telegram, p.chat.id)).toEqual(["Hello!", "Green tea."]);
    expect(model.prompts).toHaveLength(2);
    expect((await userMessagesOf(p.chat.id)).slice(2)).toEqual([
      { role: "user", content: "what do I drink?" },
      { role: "assistant", content: "Green tea." },
    ]);
  });

  it("a reply that fails is sent again on the retry, the answer appended once", async () => {
    const p = newPerson();
    const model = scriptedModel(["Noted."]);
    await useModel(p.chat.id, model.model);
    telegram.failNext("sendMessage", serverError);
    await send(p, textUpdate(p, "I drink green tea"));
    // The first call was refused (502), the second delivered.
    expect(sentTexts(telegram, p.chat.id)).toEqual(["Noted.", "Noted."]);
    expect(model.prompts).toHaveLength(1);
    expect(await userMessagesOf(p.chat.id)).toEqual([
      { role: "user", content: "I drink green tea" },
      { role: "assistant", content: "Noted." },
    ]);
  });

  it("every line of an update's handling carries the id of the webhook request that brought it, and the update's id", async () => {
    const p = newPerson();
    await useModel(p.chat.id, scriptedModel([new Error("the provider is down"), "answered"]).model);
    const printed: string[] = [];
    const spies = (["log", "warn", "error"] as const).map((method) => vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void printed.push(args.map(String).join(" "))));
    try {
      const update = textUpdate(p, "hello there");
      const res = await postUpdate(update);
      await settled(p.chat.id);
      const requestId = res.headers.get("X-Request-Id");
      expect(requestId).toMatch(/^req_[0-9a-f]{32}$/);
      const lines = printed.flatMap((text) => {
        try {
          return [JSON.parse(text) as Record<string, unknown>];
        } catch {
          return [];
        }
      });
      const ofUpdate = lines.filter((line) => line.update_id === update.update_id);
      expect(ofUpdate.map((line) => line.event)).toContain("telegram_update_failed");
      for (const line of ofUpdate) expect(line.request_id, JSON.stringify(line)).toBe(requestId);
      expect(lines.find((line) => line.event === "request" && line.request_id === requestId)).toMatchObject({ route: "/telegram/webhook", status: 200 });
      for (const line of lines) expect(line.request_id, JSON.stringify(line)).toEqual(expect.any(String));
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it("a failure is logged by its kind and code, never with what the person wrote or the reply", async () => {
    const p = newPerson();
    const secret = `my pin is ${nextId()}`;
    // The provider quotes the prompt in its error; then Telegram refuses the reply, which echoes the text.
    const model = scriptedModel([new Error(`provider rejected the prompt: ${secret}`), `you said: ${secret}`]);
    await useModel(p.chat.id, model.model);
    telegram.failNext("sendMessage", { status: 400, body: { ok: false, error_code: 400, description: "Bad Request: message is too long" } });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const warnings = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      await send(p, textUpdate(p, secret));
      const logged = [...errors.mock.calls, ...warnings.mock.calls]
        .flat()
        .map((a) => (a instanceof Error ? `${a.message} ${a.stack} ${JSON.stringify({ ...a })}` : typeof a === "string" ? a : JSON.stringify(a)))
        .join("\n");
      expect(logged).toContain('"event":"telegram_update_failed"');
      expect(logged).toMatch(/"attempts":1,"error_code":"model_failed"/);
      expect(logged).toContain('"attempts":2');
      expect(logged).not.toContain(secret);
    } finally {
      errors.mockRestore();
      warnings.mockRestore();
    }
  });

  it("a 429 from Telegram is respected: the call waits retry_after and is made again", async () => {
    const p = newPerson();
    telegram.failNext("sendMessage", tooManyRequests(1));
    await send(p, textUpdate(p, "/help"));
    const calls = telegram.to(p.chat.id, "sendMessage");
    expect(calls).toHaveLength(2);
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(1000);
    expect(calls[1]!.payload.text).toBe(calls[0]!.payload.text);
  });

  it("a call Telegram refuses is not retried forever: the person gets a short message in their language", async () => {
    const p = newPerson("ru");
    telegram.failNext("sendMessage", { status: 400, body: { ok: false, error_code: 400, description: "Bad Request: can't parse entities" } });
    await send(p, textUpdate(p, "/help"));
    expect(sentTexts(telegram, p.chat.id).at(-1)).toBe("Извините, что-то пошло не так. Попробуйте ещё раз чуть позже.");
    expect(await chatObject(p.chat.id).pending()).toBe(0);
  });

  it(`a model that keeps failing is tried ${MAX_ATTEMPTS} times, then the person is told once`, { timeout: 30_000 }, async () => {
    const p = newPerson();
    const model = scriptedModel([new Error("still down")]);
    await useModel(p.chat.id, model.model);
    await send(p, textUpdate(p, "hello?"));
    expect(model.prompts).toHaveLength(MAX_ATTEMPTS);
    expect(sentTexts(telegram, p.chat.id)).toEqual(["Sorry, something went wrong. Please try again in a moment."]);
    expect(await userMessagesOf(p.chat.id)).toEqual([{ role: "user", content: "hello?" }]);
  });
});

describe("the shared model limiter", () => {
  it("a chat reply takes from the limiter: past its requests per minute, the reply waits the delay the limiter gives", async () => {
    const p = newPerson();
    const model = scriptedModel(["first reply", "second reply"]);
    await useModel(p.chat.id, model.model, { LLM_REQUESTS_PER_MINUTE: "1" });
    await send(p, textUpdate(p, "one"));
    expect(sentTexts(telegram, p.chat.id)).toEqual(["first reply"]);

    expect((await postUpdate(textUpdate(p, "two"))).status).toBe(200);
    const alarmOf = () => runInDurableObject(chatObject(p.chat.id), (_instance, state) => state.storage.getAlarm());
    // Refused, the update waits in the queue until the minute's request is back, not the 1 s of a failure.
    await vi.waitFor(async () => expect(((await alarmOf()) ?? 0) - Date.now()).toBeGreaterThan(30_000), { timeout: 10_000, interval: 50 });
    expect(model.prompts).toHaveLength(1);
    expect(sentTexts(telegram, p.chat.id)).toEqual(["first reply"]);
    expect(await chatObject(p.chat.id).pending()).toBe(1);

    // The limits lifted, the waiting reply is sent at the next run, the message recorded once.
    await useModel(p.chat.id, model.model, { LLM_REQUESTS_PER_MINUTE: "0", LLM_TOKENS_PER_MINUTE: "0" });
    await runDurableObjectAlarm(chatObject(p.chat.id));
    expect(sentTexts(telegram, p.chat.id)).toEqual(["first reply", "second reply"]);
    expect((await userMessagesOf(p.chat.id)).map((m) => m.content)).toEqual(["one", "first reply", "two", "second reply"]);
  });
});

describe("configuration", () => {
  const base = { ...env, TELEGRAM_BOT_TOKEN: "777:abc", TELEGRAM_WEBHOOK_SECRET: "a-good-secret_0123456789", TELEGRAM_BOT_USERNAME: undefined };

  it("is off without a token, reads botInfo from TELEGRAM_BOT_INFO or the username, and refuses bad settings", () => {
    expect(readTelegramConfig({ ...base, TELEGRAM_BOT_TOKEN: undefined })).toBeNull();
    const info = { id: 777, is_bot: true, first_name: "Mind", username: "mind_bot", can_join_groups: false };
    expect(readTelegramConfig({ ...base, TELEGRAM_BOT_INFO: JSON.stringify(info) })!.botInfo).toMatchObject(info);
    expect(readTelegramConfig({ ...base, TELEGRAM_BOT_USERNAME: "@mind_bot", TELEGRAM_API_ROOT: "http://127.0.0.1:8081/" })).toMatchObject({
      botInfo: { id: 777, username: "mind_bot", is_bot: true },
      apiRoot: "http://127.0.0.1:8081",
    });
    expect(readTelegramConfig({ ...base, TELEGRAM_BOT_USERNAME: "mind_bot", TELEGRAM_API_ROOT: undefined })!.apiRoot).toBe("https://api.telegram.org");
    expect(() => readTelegramConfig(base)).toThrow("TELEGRAM_BOT_INFO");
    expect(() => readTelegramConfig({ ...base, TELEGRAM_BOT_INFO: "{not json" })).toThrow("getMe");
    expect(() => readTelegramConfig({ ...base, TELEGRAM_BOT_USERNAME: "mind_bot", TELEGRAM_WEBHOOK_SECRET: "short" })).toThrow("TELEGRAM_WEBHOOK_SECRET");
  });
});

describe("setup, retention and erasure", () => {
  it("registers the webhook with its secret and update types, and the command menu in both languages (admin only)", async () => {
    expect((await call("POST", "/telegram/setup")).status).toBe(401);
    const before = telegram.calls.length;
    const res = await call("POST", "/telegram/setup", { token: ADMIN_TOKEN });
    expect(res.status).toBe(200);
    const calls = telegram.calls.slice(before);
    expect(calls.map((c) => c.method)).toEqual(["setWebhook", "setMyCommands", "setMyCommands"]);
    expect(calls[0]!.payload).toEqual({
      url: "https://edgemind.test/telegram/webhook",
      secret_token: "test-webhook-secret-0123456789",
      allowed_updates: ["message", "callback_query"],
      drop_pending_updates: false,
    });
    expect(calls[1]!.payload.commands).toContainEqual({ command: "remember", description: "Remember a fact (without text: from the dialogue)" });
    expect(calls[2]!.payload.language_code).toBe("ru");
    expect(calls[2]!.payload.commands).toContainEqual({ command: "login", description: "Одноразовая ссылка в веб-интерфейс" });
  });

  it("update claims older than 7 days are deleted by the daily retention", async () => {
    expect(RETENTION_STEPS).toContain(TELEGRAM_RETENTION_STEPS[0]);
    const now = new Date();
    const old = nextId();
    const fresh = nextId();
    await env.DB.batch([
      env.DB.prepare("insert into telegram_updates (update_id, received_at) values (?, ?)").bind(old, new Date(now.getTime() - 8 * 86_400_000).toISOString()),
      env.DB.prepare("insert into telegram_updates (update_id, received_at) values (?, ?)").bind(fresh, new Date(now.getTime() - 6 * 86_400_000).toISOString()),
    ]);
    expect(await TELEGRAM_RETENTION_STEPS[0]!.run({ ...testDeps(), shard: testDeps().directory }, now, DEFAULT_RETENTION)).toBeGreaterThanOrEqual(1);
    expect(await claimsOf(old)).toBe(0);
    expect(await claimsOf(fresh)).toBe(1);
  });

  it("erasing a mind erases its Telegram chat mapping and counts it", async () => {
    const p = newPerson();
    await send(p, textUpdate(p, "/start"));
    const mapping = await env.DB.prepare("select mind_id, account_id from telegram_chats where telegram_chat_id = ?")
      .bind(p.chat.id)
      .first<{ mind_id: string; account_id: string }>();
    const receipt = await deleteMind(testDeps(), mapping!.account_id, mapping!.mind_id);
    expect(receipt).toMatchObject({ minds: 1, telegram_chats: 1, chats: 1 });
    expect(await env.DB.prepare("select count(*) as n from telegram_chats where telegram_chat_id = ?").bind(p.chat.id).first()).toEqual({ n: 0 });
    await send(p, textUpdate(p, "/start"));
    const again = await env.DB.prepare("select mind_id from telegram_chats where telegram_chat_id = ?").bind(p.chat.id).first<{ mind_id: string }>();
    expect(again!.mind_id).not.toBe(mapping!.mind_id);
  });
});
