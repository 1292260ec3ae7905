import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { storeMemory } from "../../src/memory/memories";
import { updateCold } from "../../src/notes/cold-memory";
import { addNote } from "../../src/notes/notes";
import { inMind, testDeps } from "../support/deps";
import { coldOf, consolidate, foldingTurn } from "../support/long-term";
import { scriptedModel, useObjectModel } from "../support/scripted-model";
import { firstEverywhere, rowsEverywhere } from "../support/shards";
import { newPerson, type Person, send, sentTexts, standInTelegram, textUpdate } from "../support/telegram";

// What the bot says is what happens: list numbers /forget understands, where /remember's facts
// go, headings in the reader's language, a person's own heading kept, /done with nothing to clear.

const telegram = standInTelegram();
const lastText = (p: Person) => sentTexts(telegram, p.chat.id).at(-1) ?? "";

async function mindOf(p: Person) {
  return (await env.DB.prepare("select mind_id, account_id from telegram_chats where telegram_chat_id = ?").bind(p.chat.id).first<{ mind_id: string; account_id: string }>())!;
}

async function personalMind(p: Person) {
  await send(p, textUpdate(p, "/start"));
  const { mind_id, account_id } = await mindOf(p);
  const human = await inMind(testDeps(), { mindId: mind_id, principal: { kind: "human", accountId: account_id }, agent: "default", agentFilter: null });
  return { mindId: mind_id, human };
}

const memoryContents = (mindId: string) =>
  rowsEverywhere<{ content: string }>("select content from memories where mind_id = ? order by content", mindId).then((rows) => rows.map((r) => r.content));

describe("/forget", () => {
  it("takes a number from the last /recall, meaning the item the person saw even after the list changed", async () => {
    const p = newPerson();
    const { mindId, human } = await personalMind(p);
    await storeMemory(human, { category: "preference", key: "i_drink_tea_without_sugar_b8ef0b", content: "Drinks tea without sugar", priority: "high" });
    await storeMemory(human, { category: "fact", key: "lives_in_tbilisi_0c1d2e", content: "Lives in Tbilisi" });
    await send(p, textUpdate(p, "/recall"));
    expect(lastText(p)).toContain("1. ✅ Drinks tea without sugar");
    expect(lastText(p)).toContain("2. ✅ Lives in Tbilisi");
    expect(lastText(p)).toContain("/forget <number> forgets an item of this list.");
    // A memory more important than both arrives after the list was shown: 2 still means Tbilisi.
    await storeMemory(human, { category: "fact", key: "allergic_to_nuts", content: "Allergic to nuts", priority: "critical" });
    await send(p, textUpdate(p, "/forget 2"));
    expect(lastText(p)).toBe("Forgotten: Lives in Tbilisi");
    expect(await memoryContents(mindId)).toEqual(["Allergic to nuts", "Drinks tea without sugar"]);
    await send(p, textUpdate(p, "/forget 7"));
    expect(lastText(p)).toBe("The last /recall or /search list has no item 7. Ask for the list again, then /forget <number>.");
    await send(p, textUpdate(p, "/forget allergic_to_nuts"));
    expect(lastText(p)).toBe("Forgotten: Allergic to nuts");
  });

  it("takes a number from the last /search, a note waiting for consolidation included", async () => {
    const p = newPerson();
    const { mindId, human } = await personalMind(p);
    await storeMemory(human, { category: "preference", key: "coffee", content: "Coffee with oat milk" });
    await addNote(human, { text: "Stopped drinking coffee after noon" });
    await send(p, textUpdate(p, "/search coffee"));
    expect(lastText(p)).toMatch(/^Found for “coffee”:\n1\. ✅ Coffee with oat milk\n2\. ✅ Stopped drinking coffee after noon\n/);
    await send(p, textUpdate(p, "/forget 2"));
    expect(lastText(p)).toBe("Forgotten: Stopped drinking coffee after noon");
    expect(await rowsEverywhere("select id from notes where mind_id = ?", mindId)).toEqual([]);
    await send(p, textUpdate(p, "/forget 1"));
    expect(await memoryContents(mindId)).toEqual([]);
    // The same number again: the item is gone, and the bot says so instead of a bare "not found".
    await send(p, textUpdate(p, "/forget 2"));
    expect(lastText(p)).toBe("Item 2 of the last list is gone already (forgotten, or a note folded into the consolidated memory). Ask for the list again to see what is there.");
  });
});

describe("/remember without text", () => {
  it("says the facts are folded into memory by the hourly consolidation, which is what happens to them unverified", async () => {
    const p = newPerson();
    const { mindId } = await personalMind(p);
    await send(p, textUpdate(p, "I deploy on Fridays"));
    const session = (await firstEverywhere<{ id: string }>(
      "select s.id from chats c join sessions s on s.id = c.active_session_id where c.kind = 'telegram' and c.external_id = ?",
      String(p.chat.id),
    ))!;
    const model = scriptedModel([JSON.stringify({ notes: [{ text: "Deploys on Fridays", section: "context", signal: "fact" }] })]);
    await runInDurableObject(env.SESSIONS.get(env.SESSIONS.idFromName(session.id)), (instance) => {
      useObjectModel(instance, model.model);
    });
    await send(p, textUpdate(p, "/remember"));
    expect(lastText(p)).toBe(
      "I found one fact in the recent dialogue and wrote it down as a note. Within the hour the consolidation folds it into your consolidated memory (/memory); until then /verify shows it, to confirm or delete.",
    );
    expect((await consolidate(testDeps(), { mindId, agent: "default" })).status).toBe("done");
    await send(p, textUpdate(p, "/memory"));
    expect(lastText(p)).toBe("Work context\n• Deploys on Fridays");
  });
});

describe("cold memory headings", () => {
  it("/memory says edgemind's headings in the reader's language, and a person's own heading as written", async () => {
    const p = newPerson("ru", "Маша");
    const { human } = await personalMind(p);
    await updateCold(human, { text: "## Work context\n- Ships on Fridays\n\n## мои планы\n- Отпуск в мае\n", version: 0 });
    await send(p, textUpdate(p, "/memory"));
    expect(lastText(p)).toBe("Рабочий контекст\n• Ships on Fridays\n\nмои планы\n• Отпуск в мае");
  });

  it("consolidation keeps a person's own heading of a known section, with or without a model", async () => {
    for (const llm of [null, scriptedModel([foldingTurn]).model]) {
      const p = newPerson("ru", "Маша");
      const { mindId, human } = await personalMind(p);
      await updateCold(human, { text: "## profile\n- Alice, engineer\n", version: 0 });
      await addNote(human, { text: "Lives in Tbilisi", category_hint: "profile" });
      await addNote(human, { text: "Prefers tea", category_hint: "preferences" });
      expect((await consolidate(testDeps({ llm }), { mindId, agent: "default" })).status).toBe("done");
      expect((await coldOf(mindId)).text).toBe("## profile\n- Alice, engineer\n- Lives in Tbilisi\n\n## Предпочтения\n- Prefers tea\n");
    }
  });
});

describe("/done", () => {
  it("with no temporary output says there is nothing to clear, and offers no buttons", async () => {
    const p = newPerson();
    await send(p, textUpdate(p, "Writing the docs"));
    await send(p, textUpdate(p, "/done"));
    expect(lastText(p)).toBe("This task has no temporary tool output, so there is nothing to clear. (Temporary output comes from tools an agent reports through the API.)");
    expect(telegram.to(p.chat.id, "sendMessage").at(-1)!.payload.reply_markup).toBeUndefined();
  });
});
