import { Composer } from "grammy";
import { createLoginLink, LOGIN_LINK_TTL_MS, loginUrl } from "../../auth/login-links";
import type { BotContext } from "../bot-context";

/** /login: a one-time link to the web UI, handed out in private chats only. */
export const loginFeature = new Composer<BotContext>();

loginFeature.command("login", async (ctx) => {
  if (ctx.chat.type !== "private") return void (await ctx.reply(ctx.t("login-private")));
  const { deps, journal, origin } = ctx.services;
  const link = await journal.once("login-link", () => createLoginLink(deps, { accountId: ctx.who.accountId, mindId: ctx.mindContext.mind.id }));
  const url = loginUrl(origin, link.token);
  await ctx.reply(ctx.t("login-link", { url, minutes: Math.round(LOGIN_LINK_TTL_MS / 60_000) }), {
    link_preview_options: { is_disabled: true },
  });
});
