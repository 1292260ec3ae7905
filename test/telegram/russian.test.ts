import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { FluentResource } from "@fluent/bundle";
import { describe, expect, it } from "vitest";
import type { LanguageModel } from "../../src/llm/providers";
import { storeMemory } from "../../src/memory/memories";
import { CATEGORIES, PRIORITIES } from "../../src/memory/rows";
import { claimNotes } from "../../src/notes/claims";
import { addNote } from "../../src/notes/notes";
import { appendMessage } from "../../src/sessions/messages";
import en from "../../src/telegram/locales/en";
import ru from "../../src/telegram/locales/ru";
import { updateMind } from "../../src/tenancy/minds";
import type { Scope } from "../../src/tenancy/principal";
import { ADMIN_TOKEN, call } from "../helpers";
import { contextOfMind, inMind, testDeps } from "../support/deps";
import { consolidate } from "../support/long-term";
import { scriptedModel, useObjectModel } from "../support/scripted-model";
import { dataOf, firstEverywhere } from "../support/shards";
import { callbackUpdate, inGroup, newPerson, nextId, type Person, send, sentTexts, standInTelegram, textUpdate, useModel } from "../support/telegram";

const telegram = standInTelegram();

type Element = string | { type: string; variants?: { value: Pattern }[] };
type Pattern = string | Element[];

/** The literal text of a pattern, in pieces between placeables, every variant of a selector included. */
function literals(pattern: Pattern): string[] {
  if (typeof pattern === "string") return [pattern];
  return pattern.flatMap((element) =>
    typeof element === "string" ? [element] : (element.variants ?? []).flatMap((variant) => literals(variant.value)),
  );
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The literal lines of every message of a catalogue, by message id. */
function linesById(source: string): Map<string, string[]> {
  const lines = new Map<string, string[]>();
  for (const entry of new FluentResource(source).body) {
    const value = (entry as { value: Pattern | null }).value;
    if (value === null) continue;
    lines.set(entry.id, literals(value).flatMap((text) => text.split("\n")).map((line) => line.trim()));
  }
  return lines;
}

/**
 * Every line of English the bot can say that its Russian counterpart says differently, as a
 * whole-word pattern: the catalogue's literal text, cut at placeables and line breaks, kept when
 * it has a word in it and the same message in Russian does not contain it.
 */
function englishCatalogue(): { id: string; text: string; pattern: RegExp }[] {
  const russian = linesById(ru);
  const found: { id: string; text: string; pattern: RegExp }[] = [];
  for (const [id, lines] of linesById(en)) {
    for (const text of new Set(lines)) {
      if (!/[A-Za-z]{2}/.test(text) || russian.get(id)?.includes(text)) continue;
      found.push({ id, text, pattern: new RegExp(`(^|[^\\p{L}])${escape(text)}($|[^\\p{L}])`, "u") });
    }
  }
  return found;
}

const MESSAGE_IDS = new FluentResource(en).body.map((entry) => entry.id);

/** Everything a person reads from the bot in one chat: message texts and button labels. */
function readBy(chatIds: number[]): string[] {
  return telegram.calls
    .filter((c) => chatIds.includes(c.payload.chat_id) && (c.method === "sendMessage" || c.method === "editMessageText"))
    .flatMap((c) => [
      c.payload.text as string,
      ...((c.payload.reply_markup?.inline_keyboard ?? []) as { text: string }[][]).flat().map((button) => button.text),
    ]);
}

/**
 * Latin words a Russian reader would stumble on: commands, links, the product's name and what
 * the person typed themselves (a memory's key) are fine.
 */
function latinWords(text: string, typed: Set<string>): string[] {
  const stripped = text.replace(/https?:\/\/\S+/g, " ").replace(/\/[a-z_]+(@\w+)?/g, " ");
  const fine = new Set(["edgemind", "id", "new", "list", "switch", "delete", ...typed]);
  return (stripped.match(/\p{Script=Latin}{2,}/gu) ?? []).filter((word) => !fine.has(word));
}

const agentScope = (mindId: string, agent = "default"): Scope => ({
  mindId,
  principal: { kind: "agent", keyId: "key_test", keyPrefix: "emk_test", mindId, agent: null },
  agent,
  agentFilter: null,
});

async function mindOf(p: Person) {
  return (await env.DB.prepare("select mind_id, account_id from telegram_chats where telegram_chat_id = ?")
    .bind(p.chat.id)
    .first<{ mind_id: string; account_id: string }>())!;
}

async function activeSessionId(p: Person): Promise<string> {
  const row = await firstEverywhere<{ id: string }>("select c.active_session_id as id from chats c where c.kind = 'telegram' and c.external_id = ?", String(p.chat.id));
  return row!.id;
}

/** Replaces the model the session's object extracts with. */
async function useExtractionModel(sessionId: string, model: LanguageModel): Promise<void> {
  await runInDurableObject(env.SESSIONS.get(env.SESSIONS.idFromName(sessionId)), (instance) => {
    useObjectModel(instance, model);
  });
}

const facts = (n: number) =>
  JSON.stringify({ notes: Array.from({ length: n }, (_, i) => ({ text: `Факт ${i + 1} из ${n} в разговоре`, section: "context", signal: "fact" })) });

describe("the bot in Russian", () => {
  it("says nothing from the English catalogue in any reply or button, and leaks no message id", async () => {
    const p = newPerson("ru", "Маша");
    const group = inGroup(p, "Команда");
    const typed = new Set<string>();
    const say = (text: string, who: Person = p) => {
      for (const word of text.replace(/^\/[a-z_]+/, " ").match(/\p{Script=Latin}+/gu) ?? []) typed.add(word);
      return send(who, textUpdate(who, text));
    };
    const press = (data: string) => send(p, callbackUpdate(p, data, nextId()));
    const lastKeyboard = () => telegram.to(p.chat.id, "sendMessage").at(-1)!.payload.reply_markup.inline_keyboard as { callback_data: string }[][];

    await say("/start");
    await say("/start", group);
    await say("/help");
    await say("Привет");
    await send(p, { update_id: nextId(), message: { message_id: nextId(), date: 0, chat: p.chat, from: p.user, sticker: { file_id: "s" } } } as never);
    await say("/login");
    await say("/login", group);
    await say("/memory");
    await say("/recall");
    await say("/verify");
    await say("/search");
    await say("/search чай");
    await say("/forget");
    await say("/forget ничего_такого");

    // Memories of every category and priority, the person's own and agents'.
    await say("/remember Люблю зелёный чай по утрам");
    const { mind_id, account_id } = await mindOf(p);
    const deps = testDeps();
    const agent = await inMind(deps, agentScope(mind_id));
    for (const [i, category] of CATEGORIES.entries()) {
      const priority = PRIORITIES[i % PRIORITIES.length]!;
      await storeMemory(agent, { category, key: `tea_${i}`, content: `Запись о чае, вид ${i}`, tags: ["чай"], priority });
    }
    await storeMemory(agent, { category: "fact", key: "tea_1", content: "Вторая запись о чае с тем же ключом" });
    await say("/recall");
    await say("/search чай");
    await say("/forget tea_1");
    await say("/forget tea_0");

    // The review: agents' memories and facts from the dialogue, both buttons of each.
    await addNote(agent, { text: "Пишет тесты до кода", category_hint: "techniques" });
    await addNote(agent, { text: "Не любит созвоны", category_hint: "avoid" });
    await addNote(agent, { text: "Заметка, которую сейчас сворачивают" });
    await say("/verify");
    const cards = telegram.to(p.chat.id, "sendMessage").filter((c) => c.payload.reply_markup);
    const data = cards.flatMap((c) => (c.payload.reply_markup.inline_keyboard as { callback_data: string }[][]).flat().map((b) => b.callback_data));
    const memoryIds = data.filter((d) => d.startsWith("mem:v:")).map((d) => d.slice(6));
    const noteIds = data.filter((d) => d.startsWith("note:v:")).map((d) => d.slice(7));
    expect(noteIds).toHaveLength(3);
    await press(`mem:v:${memoryIds[0]}`);
    await press(`mem:d:${memoryIds[1]}`);
    await press(`note:v:${noteIds[0]}`);
    await press(`note:d:${noteIds[1]}`);
    await claimNotes(await contextOfMind(mind_id), { mode: "offline", limit: 10 });
    await press(`note:d:${noteIds[2]}`);

    // Cold memory, written by the offline consolidation in the mind's language.
    await addNote(agent, { text: "Предпочитает короткие ответы", category_hint: "preference" });
    await (await dataOf(mind_id)).prepare("update notes set consolidation_id = null where mind_id = ?").bind(mind_id).run();
    await (await dataOf(mind_id)).prepare("delete from consolidations where mind_id = ?").bind(mind_id).run();
    expect((await consolidate(deps, { mindId: mind_id, agent: "default" })).status).toBe("done");
    await say("/memory");

    // Tasks and the Done? buttons.
    await say("/task");
    await say("/task list");
    await say("/task new перевод docs/ru");
    await say("/task new перевод docs/ru");
    await say("/task switch перевод");
    await say("/task switch нет_такой");
    await say("/done");
    await say("/forget 99");
    const session = await activeSessionId(p);
    const mindContext = await inMind(deps, { mindId: mind_id });
    await appendMessage(mindContext, session, { role: "tool", content: "12 тестов прошли", ephemeral: true, tool: "vitest" });
    await say("/done");
    const [yes, no] = lastKeyboard()[0]!.map((b) => b.callback_data);
    await press(no!);
    await press(yes!);
    await say("/task delete перевод");

    // /remember from the dialogue: no model, then a model finding 0, 1, 2 and 5 facts, then failing.
    await say("Я выкатываю релизы по пятницам");
    await say("/remember");
    const extraction = scriptedModel([facts(0), facts(1), facts(2), facts(5), new Error("model down")]);
    const current = await activeSessionId(p);
    await useExtractionModel(current, extraction.model);
    for (const line of ["Первое сообщение", "Второе сообщение", "Третье сообщение", "Четвёртое сообщение", "Пятое сообщение"]) {
      await say(line);
      await say("/remember");
    }
    await say("/remember");

    // The model answers; over the daily budget the bot says so.
    await useModel(p.chat.id, scriptedModel(["Вы пьёте зелёный чай."]).model);
    await say("Что я пью?");
    await updateMind(deps, account_id, mind_id, { settings: { daily_token_budget: 0 } });
    await say("Ответь ещё раз");
    await useModel(p.chat.id, null);

    // A reply Telegram refuses: the person is told, in their language, that something went wrong.
    telegram.failNext("sendMessage", { status: 400, body: { ok: false, error_code: 400, description: "Bad Request: message is too long" } });
    await say("/help");

    const setup = await call("POST", "/telegram/setup", { token: ADMIN_TOKEN });
    expect(setup.status).toBe(200);
    const menu = telegram.calls.filter((c) => c.method === "setMyCommands" && c.payload.language_code === "ru").at(-1)!;
    const read = [...readBy([p.chat.id, group.chat.id]), ...(menu.payload.commands as { description: string }[]).map((c) => c.description)];

    const catalogue = englishCatalogue();
    expect(catalogue.length).toBeGreaterThan(60);
    const english = read.flatMap((text) => catalogue.filter(({ pattern }) => pattern.test(text)).map(({ id, text: en }) => `${id}: "${en}" in "${text}"`));
    expect(english).toEqual([]);
    const leaks = read.filter((text) => /\{\s*\$|\{\?\?\?\}/.test(text) || MESSAGE_IDS.some((id) => id.includes("-") && text.includes(id)));
    expect(leaks).toEqual([]);
    expect(read.flatMap((text) => latinWords(text, typed).map((word) => `${word} in "${text}"`))).toEqual([]);

    // It was all said, in Russian, with Russian plural forms.
    const all = read.join("\n");
    for (const expected of [
      "Привет, Маша!",
      "Сообщение сохранено в задаче «основная».",
      "Это сейчас меняется",
      "Забыл 2 воспоминания с ключом tea_1",
      "Я нашёл в недавнем диалоге 1 факт и записал его заметкой.",
      "Я нашёл в недавнем диалоге 2 факта и записал их заметками.",
      "Я нашёл в недавнем диалоге 5 фактов и записал их заметками.",
      "В этой задаче нет временного вывода инструментов",
      "В последнем списке /recall или /search нет пункта 99.",
      "/forget <номер> забывает пункт этого списка.",
      "Я прочитал недавний диалог и не нашёл ничего нового.",
      "Ждут вашей проверки: воспоминания от агентов — ",
      "Предпочтения\n• ",
      "предпочтение · обычный приоритет",
      "Извините, что-то пошло не так.",
    ]) {
      expect(all).toContain(expected);
    }
  });
});

describe("the default task in a chat of more than one language", () => {
  it("is one task, shown in each reader's language, after the active task is deleted", async () => {
    const en = newPerson("en", "Alice");
    const group = inGroup(en, "Команда");
    const ru = { ...newPerson("ru", "Маша"), chat: group.chat };
    await send(group, textUpdate(group, "Hello"));
    await send(ru, textUpdate(ru, "/task new перевод"));
    await send(ru, textUpdate(ru, "/task delete перевод"));
    await send(ru, textUpdate(ru, "Привет"));
    await send(ru, textUpdate(ru, "/task list"));
    expect(sentTexts(telegram, group.chat.id).at(-1)).toBe("Задачи (▶ — активная):\n▶ основная — 2");
    await send(ru, textUpdate(ru, "/task switch основная"));
    expect(sentTexts(telegram, group.chat.id).at(-1)).toBe("Переключился на «основная».");
    await send(group, textUpdate(group, "/task list"));
    expect(sentTexts(telegram, group.chat.id).at(-1)).toBe("Tasks (▶ is active):\n▶ main — 2");
  });
});
