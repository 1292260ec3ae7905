import type { Context } from "grammy";
import type { MessageEntity } from "grammy/types";
import type { Deps } from "../deps";
import type { LanguageModel } from "../llm/providers";
import type { MindContext } from "../tenancy/mind-context";
import type { BotLocale, Translate } from "./i18n";
import type { TelegramIdentity } from "./identity";
import type { Journal } from "./journal";
import { splitMessage } from "./split";

/** What a chat keeps from one update to the next (in its object's storage). */
export interface ChatState {
  get<T>(name: string): T | undefined;
  put(name: string, value: unknown): void;
}

/** What the bot's handlers use besides the update: the domain, the model, the journal and the chat's state. */
export interface BotServices {
  deps: Deps;
  llm: LanguageModel | null;
  journal: Journal;
  state: ChatState;
  /** The Worker's public origin, for links. */
  origin: string;
}

export interface BotFlavor {
  services: BotServices;
  locale: BotLocale;
  t: Translate;
  /** Set for every update that has a sender and a chat. */
  who: TelegramIdentity;
  /** The mind of the chat, as the sender acts in it; set with `who`. */
  mindContext: MindContext;
}

export type BotContext = Context & BotFlavor;

/** Sends a reply of any length as Telegram-sized parts, in order. */
export async function replyLong(ctx: BotContext, text: string, entities: MessageEntity[] = []): Promise<void> {
  for (const part of splitMessage(text, entities)) {
    await ctx.reply(part.text, part.entities.length > 0 ? { entities: part.entities } : {});
  }
}

/** The text after a command, trimmed ("" when there is none). */
export const argumentsOf = (ctx: BotContext) => (typeof ctx.match === "string" ? ctx.match.trim() : "");
