import { Composer } from "grammy";
import { answerInSession } from "../../context/answer";
import { appendForAnswer, appendMessage } from "../../sessions/messages";
import { MAX_MESSAGE_CHARS } from "../../sessions/rows";
import type { Dialogue } from "../../sessions/windows";
import { type BotContext, replyLong } from "../bot-context";
import { activeTask, shownTaskName } from "./tasks";

/**
 * Free text: appended to the active session, answered by the model with the assembled context,
 * the answer sent while it is appended too. Every step is journaled, so a retried update repeats
 * none of them. Memory is read while the message is appended, and the append hands back the dialogue.
 */
export const chatFeature = new Composer<BotContext>();

chatFeature.on("message:text", async (ctx) => {
  const { llm, journal } = ctx.services;
  const mind = ctx.mindContext;
  const text = ctx.message.text.slice(0, MAX_MESSAGE_CHARS);
  const session = await journal.once("session", () => activeTask(ctx));
  const dialogue = appendUserMessage(ctx, session.id, text);
  // Handled below whatever happens first; this keeps a failure meanwhile from counting as unhandled.
  dialogue.catch(() => undefined);
  if (!llm) {
    await dialogue;
    await ctx.reply(ctx.t("no-model", { task: shownTaskName(ctx, session.task_name) }));
    return;
  }
  // "typing…" while the model works; a failure to show it changes nothing else.
  const typing = ctx.replyWithChatAction("typing").catch(() => undefined);
  const answer = await journal.once("answer", () => answerInSession(mind, llm, session.id, text, { dialogue }));
  // Settled already when the answer was: awaited so a failed append is never left unhandled.
  await Promise.all([dialogue, typing]);
  // The person reads the answer while it is stored: each step journaled alone, so a retry after
  // one failed repeats only that one. Both settle before the attempt ends.
  await settledBoth(
    journal.once("append-assistant", () => appendMessage(mind, session.id, { role: "assistant", content: answer })),
    replyLong(ctx, answer),
  );
});

/** Waits for both, then throws the first failure: a retry never starts while one of them still runs. */
async function settledBoth(a: Promise<unknown>, b: Promise<unknown>): Promise<void> {
  const failed = (await Promise.allSettled([a, b])).find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
}

/**
 * Appends the person's message once; the dialogue after it, or null when the append was
 * journaled by an earlier attempt (the answer then reads it).
 */
async function appendUserMessage(ctx: BotContext, sessionId: string, text: string): Promise<Dialogue | null> {
  let dialogue: Dialogue | null = null;
  await ctx.services.journal.once("append-user", async () => {
    const appended = await appendForAnswer(ctx.mindContext, sessionId, { role: "user", content: text });
    dialogue = appended.dialogue;
    return appended.appended;
  });
  return dialogue;
}

chatFeature.on("message", async (ctx) => {
  await ctx.reply(ctx.t("not-text"));
});
