import { Composer, InlineKeyboard } from "grammy";
import { inferCategory, keyForFact } from "../../memory/facts";
import { deleteMemory, forgetMemory, getMemory, listMemories, storeMemory, verifyMemory } from "../../memory/memories";
import { recallMemories } from "../../memory/recall";
import { retrieveMemories } from "../../memory/hybrid-search";
import { getMindById } from "../../minds/minds";
import { readCold } from "../../notes/cold-memory";
import { searchNotes } from "../../notes/notes";
import { extractSessionNow } from "../../sessions/messages";
import { argumentsOf, replyLong, type BotContext } from "../context";
import { activeSession } from "./tasks";

const MAX_FACT_CHARS = 2000;
const RECALL_TOKENS = 1500;
const SEARCH_LIMIT = 10;
const VERIFY_LIMIT = 10;

/** /remember, /forget, /memory, /recall, /search and /verify with its buttons. */
export const memoryFeature = new Composer<BotContext>();

memoryFeature.command("remember", async (ctx) => {
  const { deps, journal } = ctx.services;
  const fact = argumentsOf(ctx).slice(0, MAX_FACT_CHARS);
  if (fact) {
    // The person's own words: a verified user memory.
    const category = inferCategory(fact);
    const { memory } = await journal.once("store", async () =>
      storeMemory(deps, ctx.who.scope, { category, key: await keyForFact(fact), content: fact }),
    );
    await ctx.reply(ctx.t("remembered", { category: memory.category, content: memory.content }));
    return;
  }
  const session = await journal.once("session", () => activeSession(deps, ctx.who));
  const { extraction } = await journal.once("extract", () => extractSessionNow(deps, ctx.who.scope, session.id));
  const replies = { extracted: "remember-extracted", nothing: "remember-nothing", no_model: "remember-no-model" } as const;
  const id = extraction.status in replies ? replies[extraction.status as keyof typeof replies] : "remember-later";
  await ctx.reply(ctx.t(id, { notes: extraction.notes }));
});

memoryFeature.command("forget", async (ctx) => {
  const what = argumentsOf(ctx);
  if (!what) return void (await ctx.reply(ctx.t("forget-usage")));
  const gone = await ctx.services.journal.once("forget", () => forgetMemory(ctx.services.deps, ctx.who.scope, what));
  await ctx.reply(ctx.t("forgotten", { count: gone.length, what: gone.length === 1 ? `${gone[0]!.key}: ${gone[0]!.content}` : what }));
});

memoryFeature.command("memory", async (ctx) => {
  const cold = await readCold(ctx.services.deps, ctx.who.scope);
  await replyLong(ctx, cold.text.trim() || ctx.t("memory-empty"));
});

memoryFeature.command("recall", async (ctx) => {
  const { deps } = ctx.services;
  const mind = await getMindById(deps, ctx.who.mindId);
  const recall = await recallMemories(deps, ctx.who.scope, mind.name, { limit: 50, maxTokens: RECALL_TOKENS });
  await replyLong(ctx, recall.memories.length > 0 ? recall.text : ctx.t("recall-empty"));
});

memoryFeature.command("search", async (ctx) => {
  const q = argumentsOf(ctx).slice(0, 500);
  if (!q) return void (await ctx.reply(ctx.t("search-usage")));
  const { deps } = ctx.services;
  const [memories, notes] = await Promise.all([
    retrieveMemories(deps, ctx.who.scope, { q, limit: SEARCH_LIMIT }).then((found) => found.hits),
    searchNotes(deps, ctx.who.scope, { q, limit: SEARCH_LIMIT }),
  ]);
  const mark = (verified: boolean) => (verified ? "✅" : "❔");
  const lines = [
    ...memories.map(({ memory: m }) => `${mark(m.verified)} ${m.category}/${m.key}: ${m.content}`),
    ...notes.map(({ note: n }) => `${mark(n.source === "user")} ${n.text}`),
  ];
  await replyLong(ctx, lines.length > 0 ? [ctx.t("search-results", { q }), ...lines].join("\n") : ctx.t("search-empty", { q }));
});

memoryFeature.command("verify", async (ctx) => {
  const { memories } = await listMemories(ctx.services.deps, ctx.who.scope, {
    verified: false,
    source: "agent",
    limit: VERIFY_LIMIT,
    offset: 0,
  });
  if (memories.length === 0) return void (await ctx.reply(ctx.t("verify-empty")));
  await ctx.reply(ctx.t("verify-intro", { count: memories.length }));
  for (const m of memories) {
    const keyboard = new InlineKeyboard().text(ctx.t("verify-button"), `mem:v:${m.id}`).text(ctx.t("delete-button"), `mem:d:${m.id}`);
    await ctx.reply(`${m.category}/${m.key}: ${m.content}`.slice(0, 4000), { reply_markup: keyboard });
  }
});

memoryFeature.callbackQuery(/^mem:([vd]):(.+)$/, async (ctx) => {
  const { deps, journal } = ctx.services;
  const id = ctx.match[2]!;
  const verify = ctx.match[1] === "v";
  const memory = await journal.once("review", async () => {
    const current = await getMemory(deps, ctx.who.scope, id);
    if (verify) return verifyMemory(deps, ctx.who.scope, id);
    await deleteMemory(deps, ctx.who.scope, id);
    return current;
  });
  await ctx.answerCallbackQuery();
  await ctx.editMessageText(ctx.t(verify ? "verified" : "deleted", { content: `${memory.category}/${memory.key}: ${memory.content}` }).slice(0, 4000));
});
