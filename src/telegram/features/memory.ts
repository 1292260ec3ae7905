import { Composer, InlineKeyboard } from "grammy";
import { AppError, appErrorOf } from "../../errors";
import { rememberFact } from "../../memory/facts";
import { RECALL_LIMIT, SEARCH_LIMIT } from "../../memory/limits";
import { deleteMemory, forgetMemory, getMemory, listMemories, verifyMemory } from "../../memory/memories";
import { recallMemories } from "../../memory/recall";
import { memoryTitle } from "../../memory/rows";
import { readCold } from "../../notes/cold-memory";
import { localizeHeadings } from "../../notes/document";
import { retrieveMemoriesAndNotes } from "../../notes/hybrid-search";
import { deleteNote, listUnverifiedNotes, verifyNote } from "../../notes/notes";
import { extractSessionNow } from "../../sessions/messages";
import { type MessageHit, searchMessages } from "../../sessions/windows";
import { argumentsOf, type BotContext, replyLong } from "../bot-context";
import { coldMessage } from "../cold-message";
import { type ListedItem, listedItem, saveListing } from "../listing";
import { activeTask } from "./tasks";

const MAX_FACT_CHARS = 2000;
const RECALL_REPLY_TOKENS = 1500;
// A review sends one message per item: a short batch, not a page of a list.
const VERIFY_LIMIT = 10;
// What /search shows of the task's conversation: a few messages, each on one line.
const DIALOGUE_HITS = 5;
const DIALOGUE_LINE_CHARS = 200;

const mark = (verified: boolean) => (verified ? "✅" : "❔");

/** /remember, /forget, /memory, /recall, /search and /verify with its buttons. */
export const memoryFeature = new Composer<BotContext>();

memoryFeature.command("remember", async (ctx) => {
  const { journal } = ctx.services;
  const fact = argumentsOf(ctx).slice(0, MAX_FACT_CHARS);
  if (fact) {
    // The person's own words: a verified user memory.
    const { memory } = await journal.once("store", () => rememberFact(ctx.mindContext, fact));
    await ctx.reply(ctx.t("remembered", { category: ctx.t(`category-${memory.category}`), content: memory.content }));
    return;
  }
  const session = await journal.once("session", () => activeTask(ctx));
  const { extraction } = await journal.once("extract", () => extractSessionNow(ctx.mindContext, session.id));
  const replies = { extracted: "remember-extracted", nothing: "remember-nothing", no_model: "remember-no-model" } as const;
  const id = extraction.status in replies ? replies[extraction.status as keyof typeof replies] : "remember-later";
  await ctx.reply(ctx.t(id, { notes: extraction.notes }));
});

// /forget takes what the person saw: a number of the last /recall or /search list, or a key or id.
memoryFeature.command("forget", async (ctx) => {
  const what = argumentsOf(ctx);
  if (!what) return void (await ctx.reply(ctx.t("forget-usage")));
  const number = /^\d{1,4}$/.test(what) ? Number(what) : null;
  const item = number === null ? undefined : listedItem(ctx, number);
  if (item) {
    const content = await ctx.services.journal.once("forget", () => forgetListed(ctx, item)).catch((error: unknown) => {
      // Forgotten already, or a note folded into the consolidated memory since the list was shown.
      if (error instanceof AppError && error.code === "not_found") return null;
      throw error;
    });
    if (content === null) return void (await ctx.reply(ctx.t("forget-gone", { number: number! })));
    return void (await ctx.reply(ctx.t("forgotten", { count: 1, what: memoryTitle({ content }, 200) })));
  }
  try {
    const gone = await ctx.services.journal.once("forget", () => forgetMemory(ctx.mindContext, { id: what }));
    await ctx.reply(ctx.t("forgotten", { count: gone.length, what: gone.length === 1 ? memoryTitle(gone[0]!, 200) : what }));
  } catch (error) {
    // A number that is neither in the last list nor a key: say which list numbers count.
    if (number === null || !(error instanceof AppError) || error.code !== "not_found") throw error;
    await ctx.reply(ctx.t("forget-no-item", { number }));
  }
});

/** Deletes a memory or a note of the last list; answers what it said. */
async function forgetListed(ctx: BotContext, item: ListedItem): Promise<string> {
  if (item.kind === "note") return (await deleteNote(ctx.mindContext, item.id)).text;
  const [memory] = await forgetMemory(ctx.mindContext, { id: item.id });
  return memory!.content;
}

// Cold memory in the reader's language: edgemind's own headings follow the person, not the mind.
memoryFeature.command("memory", async (ctx) => {
  const cold = await readCold(ctx.mindContext);
  const document = localizeHeadings(cold.text.trim(), ctx.locale);
  if (!document) return void (await ctx.reply(ctx.t("memory-empty")));
  const message = coldMessage(document);
  await replyLong(ctx, message.text, message.entities);
});

memoryFeature.command("recall", async (ctx) => {
  const recall = await recallMemories(ctx.mindContext, { limit: RECALL_LIMIT.default, maxTokens: RECALL_REPLY_TOKENS });
  if (recall.memories.length === 0) return void (await ctx.reply(ctx.t("recall-empty")));
  const verified = recall.memories.filter((m) => m.verified).length;
  const lines = recall.memories.map(
    (m, i) =>
      `${i + 1}. ${mark(m.verified)} ${m.content}\n    ${ctx.t(`category-${m.category}`)} · ${ctx.t(`priority-${m.priority}`)}${m.tags.length > 0 ? ` · #${m.tags.join(" #")}` : ""}`,
  );
  saveListing(ctx, recall.memories.map((m) => ({ kind: "memory", id: m.id })));
  const header = ctx.t("recall-header", { count: recall.memories.length, verified, unverified: recall.memories.length - verified });
  await replyLong(ctx, [header, ...lines, "", ctx.t("forget-hint")].join("\n"));
});

// Memories and notes, numbered for /forget, then what was said in the active task (not
// extracted yet, so memory alone would miss it): the same words searched in all three at once.
memoryFeature.command("search", async (ctx) => {
  const q = argumentsOf(ctx).slice(0, 500);
  if (!q) return void (await ctx.reply(ctx.t("search-usage")));
  const [{ memories, notes }, said] = await Promise.all([retrieveMemoriesAndNotes(ctx.mindContext, { q, limit: SEARCH_LIMIT.default }), searchDialogue(ctx, q)]);
  const found = [
    ...memories.hits.map(({ memory: m }) => ({ item: { kind: "memory", id: m.id } as const, line: `${mark(m.verified)} ${m.content}` })),
    ...notes.hits.map(({ note: n }) => ({ item: { kind: "note", id: n.id } as const, line: `${mark(n.source === "user")} ${n.text}` })),
  ];
  if (found.length === 0 && said.length === 0) return void (await ctx.reply(ctx.t("search-empty", { q })));
  saveListing(ctx, found.map((f) => f.item));
  const lines = found.map((f, i) => `${i + 1}. ${f.line}`);
  const dialogue = said.map(({ message: m }) => `💬 ${ctx.t("search-dialogue-line", { role: m.role, text: shortLine(m.content) })}`);
  const parts = [ctx.t("search-results", { q }), ...lines, ...(said.length > 0 ? ["", ctx.t("search-dialogue"), ...dialogue] : [])];
  await replyLong(ctx, [...parts, ...(found.length > 0 ? ["", ctx.t("forget-hint")] : [])].join("\n"));
});

/** The active task's messages matching `q`, best first; none when the chat has no task yet (a search opens none). */
async function searchDialogue(ctx: BotContext, q: string): Promise<MessageHit[]> {
  const sessionId = ctx.who.chat.active_session_id;
  if (!sessionId) return [];
  // A message found only through its neighbours' words ("Noted." after "my bike") says nothing here.
  return searchMessages(ctx.mindContext, { q, sessionId, limit: DIALOGUE_HITS, ownWords: true }).catch((error: unknown) => {
    if (appErrorOf(error)?.code === "not_found") return [];
    throw error;
  });
}

/** One line of a message, for a list: its first DIALOGUE_LINE_CHARS characters. */
const shortLine = (text: string) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > DIALOGUE_LINE_CHARS ? `${line.slice(0, DIALOGUE_LINE_CHARS)}…` : line;
};

// One review for everything no person has confirmed: memories agents wrote, and notes (facts
// found in the dialogue, waiting for the consolidation), each called by its own name.
memoryFeature.command("verify", async (ctx) => {
  const [{ memories }, notes] = await Promise.all([
    listMemories(ctx.mindContext, { verified: false, source: "agent", limit: VERIFY_LIMIT, offset: 0 }),
    listUnverifiedNotes(ctx.mindContext, VERIFY_LIMIT),
  ]);
  if (memories.length + notes.length === 0) return void (await ctx.reply(ctx.t("verify-empty")));
  await ctx.reply(ctx.t("verify-intro", { memories: memories.length, notes: notes.length }));
  const buttons = (kind: "mem" | "note", id: string) =>
    new InlineKeyboard().text(ctx.t("verify-button"), `${kind}:v:${id}`).text(ctx.t("delete-button"), `${kind}:d:${id}`);
  for (const m of memories) {
    await ctx.reply(`${m.content}\n— ${ctx.t("written-by-agent")} (${ctx.t(`category-${m.category}`)})`.slice(0, 4000), { reply_markup: buttons("mem", m.id) });
  }
  for (const n of notes) {
    await ctx.reply(`${n.text}\n— ${ctx.t("from-dialogue")}`.slice(0, 4000), { reply_markup: buttons("note", n.id) });
  }
});

memoryFeature.callbackQuery(/^mem:([vd]):(.+)$/, async (ctx) => {
  const { journal } = ctx.services;
  const id = ctx.match[2]!;
  const verify = ctx.match[1] === "v";
  const memory = await journal.once("review", async () => {
    const current = await getMemory(ctx.mindContext, id);
    if (verify) return verifyMemory(ctx.mindContext, id);
    await deleteMemory(ctx.mindContext, id);
    return current;
  });
  await ctx.answerCallbackQuery();
  await ctx.editMessageText(ctx.t(verify ? "verified" : "deleted", { content: memory.content }).slice(0, 4000));
});

memoryFeature.callbackQuery(/^note:([vd]):(.+)$/, async (ctx) => {
  const { journal } = ctx.services;
  const id = ctx.match[2]!;
  const verify = ctx.match[1] === "v";
  const note = await journal.once("review", () => (verify ? verifyNote(ctx.mindContext, id) : deleteNote(ctx.mindContext, id)));
  await ctx.answerCallbackQuery();
  await ctx.editMessageText(ctx.t(verify ? "verified" : "deleted", { content: note.text }).slice(0, 4000));
});
