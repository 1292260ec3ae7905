import { Composer, InlineKeyboard } from "grammy";
import { completeSession } from "../../sessions/messages";
import { type Chat, DEFAULT_TASK, type Session } from "../../sessions/rows";
import { activateSession, activeSession, deleteSession, getSessionWithState, listSessions, openSession } from "../../sessions/sessions";
import type { MindContext } from "../../tenancy/mind-context";
import { argumentsOf, type BotContext, replyLong } from "../bot-context";

const MAX_TASKS_LISTED = 50;

/** The chat's active session; when there is none, the chat's default task, opened for it. */
export function activeTask(ctx: BotContext): Promise<Session> {
  // Read with the identity, in the same round trip, when the chat had one.
  const known = ctx.who.session;
  if (known && known.id === ctx.who.chat.active_session_id) return Promise.resolve(known);
  return activeSession(ctx.mindContext, ctx.who.chat);
}

/** A task's name as the reader sees it: the default task in their language, any other as named. */
export const shownTaskName = (ctx: BotContext, name: string) => (name === DEFAULT_TASK ? ctx.t("task-default") : name);

/** The stored name a person means: the default task's name in their language is the default task. */
const storedTaskName = (ctx: BotContext, typed: string) => (typed === ctx.t("task-default") ? DEFAULT_TASK : typed);

async function chatTasks(mindContext: MindContext, chat: Chat): Promise<Session[]> {
  return listSessions(mindContext, { chatId: chat.id, limit: MAX_TASKS_LISTED, offset: 0 });
}

/** /task new|list|switch|delete, and /done with its Yes / No buttons. */
export const taskFeature = new Composer<BotContext>();

taskFeature.command("task", async (ctx) => {
  const [action = "", ...rest] = argumentsOf(ctx).split(/\s+/);
  const typed = rest[0]?.slice(0, 200) ?? "";
  const name = storedTaskName(ctx, typed);
  switch (action.toLowerCase()) {
    case "new": {
      if (!typed) break;
      const repoPath = rest.slice(1).join(" ").slice(0, 500) || null;
      const { created } = await openSession(ctx.mindContext, ctx.who.chat.id, { task_name: name, repo_path: repoPath });
      await ctx.reply(ctx.t(created ? "task-created" : "task-existing", { task: typed }));
      return;
    }
    case "list": {
      const tasks = await chatTasks(ctx.mindContext, ctx.who.chat);
      if (tasks.length === 0) return void (await ctx.reply(ctx.t("task-list-empty")));
      const lines = tasks.map((s) => `${s.active ? "▶" : "•"} ${shownTaskName(ctx, s.task_name)}${s.repo_path ? ` (${s.repo_path})` : ""} — ${s.message_count}`);
      await replyLong(ctx, [ctx.t("task-list"), ...lines].join("\n"));
      return;
    }
    case "switch":
    case "delete": {
      if (!typed) break;
      const task = (await chatTasks(ctx.mindContext, ctx.who.chat)).find((s) => s.task_name === name);
      if (!task) return void (await ctx.reply(ctx.t("task-not-found", { task: typed })));
      if (action.toLowerCase() === "switch") {
        await activateSession(ctx.mindContext, task.id);
        await ctx.reply(ctx.t("task-switched", { task: typed }));
      } else {
        const deleted = await deleteSession(ctx.mindContext, task.id);
        await ctx.reply(ctx.t("task-deleted", { task: typed, messages: deleted.messages ?? 0 }));
      }
      return;
    }
  }
  await ctx.reply(ctx.t("task-usage"));
});

taskFeature.command("done", async (ctx) => {
  const session = await ctx.services.journal.once("session", () => activeTask(ctx));
  // Only tool output an agent reports through the API is temporary; without any, say so plainly.
  const { state } = await getSessionWithState(ctx.mindContext, session.id);
  if (!state.ephemeral_pending && !state.completion_pending) return void (await ctx.reply(ctx.t("done-nothing")));
  const keyboard = new InlineKeyboard().text(ctx.t("done-yes"), `done:y:${session.id}`).text(ctx.t("done-no"), `done:n:${session.id}`);
  await ctx.reply(ctx.t("done-question"), { reply_markup: keyboard });
});

taskFeature.callbackQuery(/^done:([yn]):(.+)$/, async (ctx) => {
  const confirmed = ctx.match[1] === "y";
  const result = await ctx.services.journal.once("complete", () =>
    completeSession(ctx.mindContext, ctx.match[2]!, confirmed),
  );
  await ctx.answerCallbackQuery();
  await ctx.editMessageText(confirmed ? ctx.t("done-cleared", { count: result.cleared }) : ctx.t("done-kept"));
});
