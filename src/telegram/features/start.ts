import { Composer } from "grammy";
import type { BotContext } from "../bot-context";
import { commandMenu } from "../commands";

/** /start greets (the account and mind were made on first contact), /help lists the commands. */
export const startFeature = new Composer<BotContext>();

startFeature.command("start", async (ctx) => {
  const personal = ctx.chat.type === "private";
  await ctx.reply(personal ? ctx.t("start", { name: ctx.from?.first_name ?? "" }) : ctx.t("start-group"));
});

startFeature.command("help", async (ctx) => {
  const commands = commandMenu(ctx.t)
    .map((c) => `/${c.command} — ${c.description}`)
    .join("\n");
  await ctx.reply(ctx.t("help", { commands }));
});
