import { Composer } from "grammy";
import { answerInSession } from "../../context/answer";
import { appendMessage } from "../../sessions/messages";
import { MAX_MESSAGE_CHARS } from "../../sessions/model";
import { type BotContext, replyLong } from "../bot-context";
import { activeTask, shownTaskName } from "./tasks";

/**
 * Free text: appended to the active session, answered by the model with the assembled context,
 * the answer appended too. Every step is journaled, so a retried update repeats none of them.
 */
export const chatFeature = new Composer<BotContext>();

chatFeature.on("message:text", async (ctx) => {
  const { llm, journal } = ctx.services;
  const mind = ctx.mindContext;
  const text = ctx.message.text.slice(0, MAX_MESSAGE_CHARS);
  const session = await journal.once("session", () => activeTask(ctx));
  await journal.once("append-user", () => appendMessage(mind, session.id, { role: "user", content: text }));
  if (!llm) {
    await ctx.reply(ctx.t("no-model", { task: shownTaskName(ctx, session.task_name) }));
    return;
  }
  // "typing…" while the model works; a failure to show it changes nothing else.
  await ctx.replyWithChatAction("typing").catch(() => undefined);
  const answer = await journal.once("answer", () => answerInSession(mind, llm, session.id, text));
  await journal.once("append-assistant", () => appendMessage(mind, session.id, { role: "assistant", content: answer }));
  await replyLong(ctx, answer);
});

chatFeature.on("message", async (ctx) => {
  await ctx.reply(ctx.t("not-text"));
});
