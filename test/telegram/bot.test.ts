import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { redeemLoginLink } from "../../src/auth/login-links";
import { storeMemory } from "../../src/memory/memories";
import { updateCold } from "../../src/notes/cold-memory";
import { appendMessage } from "../../src/sessions/messages";
import { messageIds } from "../../src/telegram/i18n";
import { splitMessage } from "../../src/telegram/split";
import { updateMind } from "../../src/tenancy/minds";
import type { Scope } from "../../src/tenancy/principal";
import { inMind, manualClock, testDeps } from "../support/deps";
import { scriptedModel, useObjectModel } from "../support/scripted-model";
import { dataOf, firstEverywhere, rowsEverywhere } from "../support/shards";
import {
  callbackUpdate,
  editedUpdate,
  inGroup,
  newPerson,
  nextId,
  type Person,
  postUpdate,
  send,
  sentTexts,
  standInTelegram,
  textUpdate,
  useModel,
} from "../support/telegram";

const telegram = standInTelegram();

async function mindOf(p: Person) {
  return env.DB.prepare("select mind_id, account_id, kind from telegram_chats where telegram_chat_id = ?")
    .bind(p.chat.id)
    .first<{ mind_id: string; account_id: string; kind: string }>();
}

async function activeSessionOf(p: Person) {
  return firstEverywhere<{ id: string; task_name: string; repo_path: string; mind_id: string }>(
    `select s.id, s.task_name, s.repo_path, c.mind_id from chats c join sessions s on s.id = c.active_session_id
     where c.kind = 'telegram' and c.external_id = ?`,
    String(p.chat.id),
  );
}

async function messagesOf(sessionId: string) {
  return rowsEverywhere<{ role: string; content: string; ephemeral: number }>(
    "select role, content, ephemeral from messages where session_id = ? order by id",
    sessionId,
  );
}

const LONE_SURROGATE = /\p{Cs}/u;
const lastText = (p: Person) => sentTexts(telegram, p.chat.id).at(-1) ?? "";
const humanScope = (mindId: string, accountId: string): Scope => ({
  mindId,
  principal: { kind: "human", accountId },
  agent: "default",
  agentFilter: null,
});
const agentScope = (mindId: string): Scope => ({
  mindId,
  principal: { kind: "agent", keyId: "key_test", keyPrefix: "emk_test", mindId, agent: null },
  agent: "default",
  agentFilter: null,
});

describe("first contact", () => {
  it("/start gives a Telegram user an account and a personal mind, and answers in their language", async () => {
    const ru = newPerson("ru-RU", "Маша");
    await send(ru, textUpdate(ru, "/start"));
    expect(lastText(ru)).toContain("Привет, Маша!");
    const mapping = await mindOf(ru);
    expect(mapping).toMatchObject({ kind: "private" });
    const account = await env.DB.prepare("select id, locale from accounts where telegram_user_id = ?").bind(ru.user.id).first();
    expect(account).toMatchObject({ id: mapping!.account_id, locale: "ru" });
    const mind = await env.DB.prepare("select account_id, locale from minds where id = ?").bind(mapping!.mind_id).first();
    expect(mind).toMatchObject({ account_id: mapping!.account_id, locale: "ru" });

    const en = newPerson("en");
    await send(en, textUpdate(en, "/start"));
    expect(lastText(en)).toContain("Hi, Alice!");
    expect((await mindOf(en))!.mind_id).not.toBe(mapping!.mind_id);
  });

  it("a Telegram user whose usual account name is taken still gets an account", async () => {
    const p = newPerson();
    await env.DB.prepare("insert into accounts (id, name, locale, created_at) values (?, ?, 'en', ?)")
      .bind(`acc_taken_${p.user.id}`, `telegram:${p.user.id}`, new Date().toISOString())
      .run();
    await send(p, textUpdate(p, "/start"));
    expect(lastText(p)).toContain("Hi, Alice!");
    const account = await env.DB.prepare("select id, name from accounts where telegram_user_id = ?").bind(p.user.id).first<{ id: string; name: string }>();
    expect(account!.name).toMatch(new RegExp(`^telegram:${p.user.id}:acc_`));
    expect((await mindOf(p))!.account_id).toBe(account!.id);
  });

  it("a group chat gets a mind of its own, owned by the person who started the bot there", async () => {
    const p = newPerson();
    const group = inGroup(p);
    await send(p, textUpdate(p, "/start"));
    await send(group, textUpdate(group, "/start@edgemind_test_bot"));
    expect(lastText(group)).toContain("This group has a memory of its own");
    const personal = await mindOf(p);
    const shared = await mindOf(group);
    expect(shared).toMatchObject({ kind: "group", account_id: personal!.account_id });
    expect(shared!.mind_id).not.toBe(personal!.mind_id);
  });
});

describe("free text", () => {
  it("with no model configured says so plainly and still records the message", async () => {
    const p = newPerson();
    await send(p, textUpdate(p, "Hello there"));
    expect(lastText(p)).toBe('No language model is configured, so I cannot answer. Your message is saved in the task "main".');
    const session = await activeSessionOf(p);
    expect(await messagesOf(session!.id)).toEqual([{ role: "user", content: "Hello there", ephemeral: 0 }]);
  });

  it("is answered by the model with the assembled context, and both sides are recorded", async () => {
    const p = newPerson();
    const model = scriptedModel(["You drink green tea."]);
    await useModel(p.chat.id, model.model);
    await send(p, textUpdate(p, "/remember I like green tea in the morning"));
    await send(p, textUpdate(p, "What do I like to drink?"));
    expect(lastText(p)).toBe("You drink green tea.");
    expect(telegram.to(p.chat.id).slice(-2).map((c) => [c.method, c.payload.action ?? c.payload.text])).toEqual([
      ["sendChatAction", "typing"],
      ["sendMessage", "You drink green tea."],
    ]);
    expect(model.systems[0]).toMatch(/<memory>[\s\S]*\n### preference\n#### \d+ \w+ \d{4}\n- I like green tea in the morning[\s\S]*<\/memory>/);
    expect(model.prompts[0]).toContain("user: What do I like to drink?");
    const session = await activeSessionOf(p);
    expect(await messagesOf(session!.id)).toEqual([
      { role: "user", content: "What do I like to drink?", ephemeral: 0 },
      { role: "assistant", content: "You drink green tea.", ephemeral: 0 },
    ]);
    // The ledger's line is written after the reply, by the chat object's deferred work.
    const usage = () => dataOf(session!.mind_id).then((db) => db.prepare("select calls from llm_usage where mind_id = ? and purpose = 'chat'").bind(session!.mind_id).first());
    await vi.waitFor(async () => expect(await usage()).toEqual({ calls: 1 }));
  });

  it("over the mind's daily token budget, says so in the person's language and keeps the message", async () => {
    const p = newPerson("ru");
    const model = scriptedModel(["never sent"]);
    await useModel(p.chat.id, model.model);
    await send(p, textUpdate(p, "/start"));
    const { mind_id, account_id } = (await mindOf(p))!;
    await updateMind(testDeps(), account_id, mind_id, { settings: { daily_token_budget: 0 } });
    await send(p, textUpdate(p, "ответь"));
    expect(lastText(p)).toBe("Дневной лимит модели исчерпан; ответить смогу завтра. Сообщение сохранено.");
    expect(model.prompts).toEqual([]);
    expect(await messagesOf((await activeSessionOf(p))!.id)).toEqual([{ role: "user", content: "ответь", ephemeral: 0 }]);
  });

  it("splits a 5,000-character Russian reply with emoji into Telegram-sized parts, cutting no character", async () => {
    const p = newPerson("ru");
    const sentence = "Привет, мир! 👋🏽 Память — это 🧠 и 👨‍👩‍👧‍👦 вместе. ";
    const long = sentence.repeat(Math.ceil(5000 / sentence.length)).trimEnd();
    expect(long.length).toBeGreaterThanOrEqual(5000);
    await useModel(p.chat.id, scriptedModel([long]).model);
    await send(p, textUpdate(p, "Расскажи длинно"));
    const parts = sentTexts(telegram, p.chat.id);
    expect(parts.length).toBe(2);
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(4096);
      expect(part).not.toMatch(LONE_SURROGATE);
      expect(part).not.toMatch(/^[\u{1F3FB}-\u{1F3FF}\u200D]/u);
    }
    expect(parts.join(" ").replace(/\s+/g, " ")).toBe(long.replace(/\s+/g, " "));
  });

  it("an edited message and an unsupported update type are acknowledged and change nothing", async () => {
    const p = newPerson();
    await send(p, textUpdate(p, "original"));
    const before = telegram.calls.length;
    await send(p, editedUpdate(p, "edited text"));
    const stranger = newPerson();
    await send(stranger, editedUpdate(stranger, "an edit from someone new"));
    expect(await env.DB.prepare("select count(*) as n from accounts where telegram_user_id = ?").bind(stranger.user.id).first()).toEqual({ n: 0 });
    const poll = { update_id: nextId(), poll: { id: "1", question: "?", options: [], total_voter_count: 0, is_closed: false, is_anonymous: true, type: "regular", allows_multiple_answers: false } };
    const res = await postUpdate(poll);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ ok: true, ignored: true });
    expect(telegram.calls.length).toBe(before);
    expect((await messagesOf((await activeSessionOf(p))!.id)).map((m) => m.content)).toEqual(["original"]);
  });
});

describe("tasks", () => {
  it("switching tasks keeps their histories apart, in the model's context too", async () => {
    const p = newPerson();
    const model = scriptedModel(["ok"]);
    await useModel(p.chat.id, model.model);
    await send(p, textUpdate(p, "/task new alpha repos/alpha"));
    expect(lastText(p)).toBe("New task “alpha” is now active.");
    await send(p, textUpdate(p, "alpha uses postgres"));
    await send(p, textUpdate(p, "/task new beta"));
    await send(p, textUpdate(p, "beta uses redis"));
    await send(p, textUpdate(p, "/task switch alpha"));
    expect(lastText(p)).toBe("Switched to “alpha”.");
    await send(p, textUpdate(p, "which database?"));
    const last = model.prompts.at(-1)!;
    expect(last).toContain("alpha uses postgres");
    expect(last).not.toContain("beta uses redis");
    const alpha = await activeSessionOf(p);
    expect(alpha).toMatchObject({ task_name: "alpha", repo_path: "repos/alpha" });
    expect((await messagesOf(alpha!.id)).map((m) => m.content)).toEqual(["alpha uses postgres", "ok", "which database?", "ok"]);

    await send(p, textUpdate(p, "/task list"));
    expect(lastText(p)).toMatch(/Tasks \(▶ is active\):\n▶ alpha \(repos\/alpha\) — 4\n• beta — 2/);
  });

  it("/task delete erases a task; the chat goes back to its default task", async () => {
    const p = newPerson();
    await send(p, textUpdate(p, "/task new scratch"));
    await send(p, textUpdate(p, "note to self"));
    const scratch = await activeSessionOf(p);
    await send(p, textUpdate(p, "/task delete scratch"));
    expect(lastText(p)).toBe("Task “scratch” is erased (1 messages).");
    expect(await messagesOf(scratch!.id)).toEqual([]);
    await send(p, textUpdate(p, "/task switch scratch"));
    expect(lastText(p)).toBe("There is no task “scratch”. /task list shows them.");
    await send(p, textUpdate(p, "hello again"));
    expect(await activeSessionOf(p)).toMatchObject({ task_name: "main" });
  });
});

describe("/done", () => {
  it("asks Done? with Yes / No buttons: No keeps the ephemeral output, Yes clears it", async () => {
    const p = newPerson();
    await send(p, textUpdate(p, "run the tests"));
    const session = (await activeSessionOf(p))!;
    const deps = testDeps();
    await appendMessage(await inMind(deps, { mindId: session.mind_id }), session.id, { role: "tool", content: "12 passed", ephemeral: true, tool: "vitest" });

    await send(p, textUpdate(p, "/done"));
    const question = telegram.to(p.chat.id, "sendMessage").at(-1)!;
    expect(question.payload.reply_markup.inline_keyboard).toEqual([
      [
        { text: "Yes", callback_data: `done:y:${session.id}` },
        { text: "No", callback_data: `done:n:${session.id}` },
      ],
    ]);
    await send(p, callbackUpdate(p, `done:n:${session.id}`, 77));
    expect(telegram.to(p.chat.id, "editMessageText").at(-1)!.payload).toMatchObject({ message_id: 77, text: "Kept everything." });
    expect((await messagesOf(session.id)).filter((m) => m.ephemeral === 1)).toHaveLength(1);
    expect(telegram.calls.some((c) => c.method === "answerCallbackQuery")).toBe(true);

    await send(p, callbackUpdate(p, `done:y:${session.id}`, 78));
    expect(telegram.to(p.chat.id, "editMessageText").at(-1)!.payload.text).toBe("Cleared one temporary message.");
    expect(await messagesOf(session.id)).toEqual([{ role: "user", content: "run the tests", ephemeral: 0 }]);
  });

  it("a button for another mind's session is refused and changes nothing", async () => {
    const owner = newPerson();
    await send(owner, textUpdate(owner, "mine"));
    const session = (await activeSessionOf(owner))!;
    const stranger = newPerson("ru");
    await send(stranger, callbackUpdate(stranger, `done:y:${session.id}`, 5));
    expect(lastText(stranger)).toBe("Не нашёл такого.");
    expect(await messagesOf(session.id)).toHaveLength(1);
  });
});

describe("memory commands", () => {
  it("/remember stores a verified user memory; /recall and /search find it; /forget removes it", async () => {
    const p = newPerson();
    await send(p, textUpdate(p, "/remember My name is Alice and I work on billing"));
    expect(lastText(p)).toBe("Remembered (identity): My name is Alice and I work on billing");
    const { mind_id } = (await mindOf(p))!;
    const stored = await (await dataOf(mind_id)).prepare("select key, category, source, verified, confidence from memories where mind_id = ?").bind(mind_id).first<any>();
    expect(stored).toMatchObject({ category: "identity", source: "user", verified: 1, confidence: 1 });

    await send(p, textUpdate(p, "/recall"));
    expect(lastText(p)).toBe(
      "One memory (1 verified, 0 unverified), most important first:\n1. ✅ My name is Alice and I work on billing\n    identity · normal priority\n\n/forget <number> forgets an item of this list.",
    );
    await send(p, textUpdate(p, "/search billing"));
    expect(lastText(p)).toBe("Found for “billing”:\n1. ✅ My name is Alice and I work on billing\n\n/forget <number> forgets an item of this list.");
    await send(p, textUpdate(p, `/forget ${stored.key}`));
    expect(lastText(p)).toBe("Forgotten: My name is Alice and I work on billing");
    await send(p, textUpdate(p, "/forget no_such_key"));
    expect(lastText(p)).toBe("I could not find that.");
    await send(p, textUpdate(p, "/search billing"));
    expect(lastText(p)).toBe("Nothing found for “billing”.");
  });

  it("/search finds what was said in the active task beside memories and notes, before any extraction", async () => {
    const p = newPerson();
    await useModel(p.chat.id, scriptedModel(["Noted.", "Noted."]).model);
    await send(p, textUpdate(p, "/remember I keep my bike in the shed"));
    await send(p, textUpdate(p, "The spare bike key hangs by the door"));
    await send(p, textUpdate(p, "/search bike"));
    expect(lastText(p)).toBe(
      "Found for “bike”:\n1. ✅ I keep my bike in the shed\n\nIn this task's conversation:\n💬 you: The spare bike key hangs by the door\n\n/forget <number> forgets an item of this list.",
    );
    await send(p, textUpdate(p, "/task new errands"));
    await send(p, textUpdate(p, "/search key"));
    expect(lastText(p)).toBe("Nothing found for “key”.");
  });

  it("/remember files like sentences of either language as preferences, under keys of their words", async () => {
    const en = newPerson();
    const ru = newPerson("ru", "Маша");
    await send(en, textUpdate(en, "/remember I drink green tea every morning"));
    expect(lastText(en)).toBe("Remembered (preference): I drink green tea every morning");
    await send(en, textUpdate(en, "/remember I prefer oat milk"));
    expect(lastText(en)).toBe("Remembered (preference): I prefer oat milk");
    await send(ru, textUpdate(ru, "/remember Я пью зелёный чай каждое утро"));
    expect(lastText(ru)).toBe("Запомнил (предпочтение): Я пью зелёный чай каждое утро");
    const keys = async (p: Person) => {
      const { mind_id } = (await mindOf(p))!;
      const rows = await (await dataOf(mind_id)).prepare("select category, key from memories where mind_id = ? order by key").bind(mind_id).all();
      return rows.results;
    };
    expect(await keys(en)).toEqual([
      { category: "preference", key: "green_tea_every_morning" },
      { category: "preference", key: "oat_milk" },
    ]);
    expect(await keys(ru)).toEqual([{ category: "preference", key: "zelenyj_chaj_kazhdoe_utro" }]);
  });

  it("/remember with no text extracts from the dialogue; with no model it says so", async () => {
    const p = newPerson();
    await send(p, textUpdate(p, "I deploy on Fridays"));
    await send(p, textUpdate(p, "/remember"));
    expect(lastText(p)).toBe("No language model is configured, so I cannot extract facts. Use /remember followed by the fact.");
  });

  it("facts /remember finds in the dialogue wait for the same /verify as agents' memories", async () => {
    const p = newPerson("ru");
    const model = scriptedModel([
      JSON.stringify({ notes: [{ text: "Выкатывает релизы по пятницам", section: "context", signal: "fact" }, { text: "Пишет на Go", section: "techniques", signal: "fact" }] }),
    ]);
    await send(p, textUpdate(p, "Я выкатываю релизы по пятницам и пишу на Go"));
    const session = (await activeSessionOf(p))!;
    await runInDurableObject(env.SESSIONS.get(env.SESSIONS.idFromName(session.id)), (instance) => {
      useObjectModel(instance, model.model);
    });
    await send(p, textUpdate(p, "/remember"));
    expect(lastText(p)).toBe(
      "Я нашёл в недавнем диалоге 2 факта и записал их заметками. В течение часа консолидация внесёт их в сводную память (/memory); до тех пор /verify покажет заметки, чтобы подтвердить или удалить.",
    );
    await send(p, textUpdate(p, "/verify"));
    const sent = telegram.to(p.chat.id, "sendMessage").slice(-3);
    expect(sent.map((c) => c.payload.text)).toEqual([
      "Ждут вашей проверки: воспоминания от агентов — 0, заметки из диалога — 2.",
      "Выкатывает релизы по пятницам\n— заметка из диалога; ежечасная консолидация внесёт её в сводную память",
      "Пишет на Go\n— заметка из диалога; ежечасная консолидация внесёт её в сводную память",
    ]);
    const [verify, remove] = sent.slice(1).map((c) => c.payload.reply_markup.inline_keyboard[0][0].callback_data as string);
    expect(verify).toMatch(/^note:v:note_/);
    await send(p, callbackUpdate(p, verify!, 20));
    await send(p, callbackUpdate(p, remove!.replace(":v:", ":d:"), 21));
    const { mind_id } = (await mindOf(p))!;
    const rows = await (await dataOf(mind_id)).prepare("select text, source, confidence from notes where mind_id = ?").bind(mind_id).all();
    expect(rows.results).toEqual([{ text: "Выкатывает релизы по пятницам", source: "user", confidence: 1 }]);
    await send(p, textUpdate(p, "/verify"));
    expect(lastText(p)).toBe("Проверять нечего: непроверенных воспоминаний и заметок нет.");
  });

  it("/memory shows the consolidated memory", async () => {
    const p = newPerson();
    await send(p, textUpdate(p, "/memory"));
    expect(lastText(p)).toBe("The consolidated memory is empty so far.");
    const { mind_id, account_id } = (await mindOf(p))!;
    await updateCold(await inMind(testDeps(), humanScope(mind_id, account_id)), { text: "## Preferences\n- Tea, not coffee\n", version: 0 });
    await send(p, textUpdate(p, "/memory"));
    expect(lastText(p)).toBe("Preferences\n• Tea, not coffee");
  });

  it("/memory sends headings in bold without their markers, and a fact's own <, & and * as written", async () => {
    const p = newPerson();
    await send(p, textUpdate(p, "/start"));
    const { mind_id, account_id } = (await mindOf(p))!;
    const text = "## Preferences\n- Tea, not coffee\n- <script>alert(1)</script> & *bold* words\n\n## Профиль\n- Пишет на TypeScript 🧑‍💻\n";
    await updateCold(await inMind(testDeps(), humanScope(mind_id, account_id)), { text, version: 0 });
    await send(p, textUpdate(p, "/memory"));
    const sent = telegram.to(p.chat.id, "sendMessage").at(-1)!.payload;
    expect(sent.text).toBe("Preferences\n• Tea, not coffee\n• <script>alert(1)</script> & *bold* words\n\nProfile\n• Пишет на TypeScript 🧑‍💻");
    expect(sent.parse_mode).toBeUndefined();
    expect(sent.entities).toEqual([
      { type: "bold", offset: 0, length: "Preferences".length },
      { type: "bold", offset: sent.text.indexOf("Profile"), length: "Profile".length },
    ]);
  });

  it("/memory splits a long document into parts without cutting a bold heading or losing a fact", async () => {
    const p = newPerson("ru");
    await send(p, textUpdate(p, "/start"));
    const { mind_id, account_id } = (await mindOf(p))!;
    const facts = Array.from({ length: 240 }, (_, i) => `Факт номер ${i} о чае & кофе <${i}>`);
    const sections = ["Profile", "Preferences", "Avoid", "Glossary"].map((heading, s) => [`## ${heading}`, ...facts.slice(s * 60, s * 60 + 60).map((f) => `- ${f}`)].join("\n"));
    await updateCold(await inMind(testDeps(), humanScope(mind_id, account_id)), { text: sections.join("\n\n") + "\n", version: 0 });
    const before = telegram.to(p.chat.id, "sendMessage").length;
    await send(p, textUpdate(p, "/memory"));
    const parts = telegram.to(p.chat.id, "sendMessage").slice(before).map((c) => c.payload);
    expect(parts.length).toBeGreaterThan(1);
    const headings = parts.flatMap((part) => (part.entities ?? []).map((e: { type: string; offset: number; length: number }) => `${e.type} ${part.text.slice(e.offset, e.offset + e.length)}`));
    expect(headings).toEqual(["bold Профиль", "bold Предпочтения", "bold Чего избегать", "bold Глоссарий"]);
    const all = parts.map((part) => part.text as string).join("\n");
    expect(all).not.toContain("#");
    for (const fact of facts) expect(all).toContain(`• ${fact}`);
    for (const part of parts) expect(part.text.length).toBeLessThanOrEqual(4096);
  });

  it("/verify shows unverified agent memories with Verify / Delete buttons, and the buttons work", async () => {
    const p = newPerson("ru");
    await send(p, textUpdate(p, "/verify"));
    expect(lastText(p)).toBe("Проверять нечего: непроверенных воспоминаний и заметок нет.");
    const { mind_id } = (await mindOf(p))!;
    const deps = testDeps();
    const { memory: a } = await storeMemory(await inMind(deps, agentScope(mind_id)), { category: "fact", key: "works_remote", content: "Работает удалённо" });
    const { memory: b } = await storeMemory(await inMind(deps, agentScope(mind_id)), { category: "fact", key: "has_cat", content: "Есть кот" });
    await send(p, textUpdate(p, "/verify"));
    expect(telegram.to(p.chat.id, "sendMessage").at(-3)!.payload.text).toBe("Ждут вашей проверки: воспоминания от агентов — 2, заметки из диалога — 0.");
    const cards = telegram.to(p.chat.id, "sendMessage").slice(-2);
    expect(cards.map((c) => c.payload.text).sort()).toEqual(["Есть кот\n— воспоминание, записанное агентом (факт)", "Работает удалённо\n— воспоминание, записанное агентом (факт)"]);
    expect(cards.map((c) => c.payload.reply_markup.inline_keyboard[0].map((k: any) => k.text))).toEqual([
      ["Подтвердить", "Удалить"],
      ["Подтвердить", "Удалить"],
    ]);
    const buttonsOf = (id: string) => cards.flatMap((c) => c.payload.reply_markup.inline_keyboard[0]).filter((k: any) => k.callback_data.endsWith(id));
    expect(buttonsOf(a.id).map((k: any) => k.callback_data)).toEqual([`mem:v:${a.id}`, `mem:d:${a.id}`]);

    await send(p, callbackUpdate(p, `mem:v:${a.id}`, 10));
    await send(p, callbackUpdate(p, `mem:d:${b.id}`, 11));
    const edits = telegram.to(p.chat.id, "editMessageText").map((c) => c.payload.text);
    expect(edits).toEqual(["Подтверждено: Работает удалённо", "Удалено: Есть кот"]);
    const rows = await (await dataOf(mind_id)).prepare("select key, verified from memories where mind_id = ?").bind(mind_id).all();
    expect(rows.results).toEqual([{ key: "works_remote", verified: 1 }]);
  });
});

describe("/login", () => {
  it("sends a one-time link to the web UI that works once", async () => {
    const p = newPerson();
    await send(p, textUpdate(p, "/login"));
    const match = /(https:\/\/edgemind\.test\/ui\/login\?token=([A-Za-z0-9_-]+))$/m.exec(lastText(p));
    expect(match).not.toBeNull();
    const { mind_id, account_id } = (await mindOf(p))!;
    expect(await redeemLoginLink(testDeps(), match![2]!)).toEqual({ accountId: account_id, mindId: mind_id });
    await expect(redeemLoginLink(testDeps(), match![2]!)).rejects.toThrow("invalid, used or expired");
  });

  it("expires within minutes", async () => {
    const p = newPerson();
    await send(p, textUpdate(p, "/login"));
    const token = /token=([A-Za-z0-9_-]+)/.exec(lastText(p))![1]!;
    const later = manualClock(new Date(Date.now() + 11 * 60_000));
    await expect(redeemLoginLink(testDeps({ clock: later }), token)).rejects.toThrow("invalid, used or expired");
  });

  it("is not handed out in a group chat", async () => {
    const group = inGroup(newPerson());
    await send(group, textUpdate(group, "/login"));
    expect(lastText(group)).toBe("For your safety, ask for a login link in a private chat with me.");
  });
});

describe("languages", () => {
  it("Russian and English say the same things, and /help lists every command in each", async () => {
    expect(messageIds("ru").sort()).toEqual(messageIds("en").sort());
    const ru = newPerson("ru");
    await send(ru, textUpdate(ru, "/help"));
    expect(lastText(ru)).toContain("/remember — Запомнить факт");
    expect(lastText(ru)).toContain("/task — Задачи: new, list, switch, delete");
    const en = newPerson("en-GB");
    await send(en, textUpdate(en, "/help"));
    expect(lastText(en)).toContain("/verify — Check unverified memories and notes");
  });
});

describe("splitting long replies", () => {
  it("prefers paragraph breaks, keeps entities whole, and cuts between graphemes as a last resort", () => {
    const paragraphs = ["a".repeat(3000), "b".repeat(3000)].join("\n\n");
    expect(splitMessage(paragraphs).map((p) => p.text)).toEqual(["a".repeat(3000), "b".repeat(3000)]);

    const text = `${"x ".repeat(45)}https://example.com/${"y".repeat(20)} tail`;
    const url = { type: "url" as const, offset: 90, length: 39 };
    const parts = splitMessage(text, [url], 100);
    expect(parts[0]!.text).toBe("x ".repeat(45).trim());
    expect(parts[1]!.entities).toEqual([{ type: "url", offset: 0, length: 39 }]);

    const emoji = "👨‍👩‍👧‍👦".repeat(30);
    const cut = splitMessage(emoji, [], 100);
    expect(cut.every((p) => p.text.length <= 100 && !LONE_SURROGATE.test(p.text))).toBe(true);
    expect(cut.map((p) => p.text).join("")).toBe(emoji);
    expect(cut[0]!.text.length % 11).toBe(0);
  });
});

