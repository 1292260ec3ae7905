import type { BotCommand } from "grammy/types";
import type { Translate } from "./i18n";

/** The bot's commands, in the order the menu and /help show them. */
export const COMMANDS = ["start", "help", "remember", "forget", "memory", "recall", "search", "task", "done", "verify", "login"] as const;

/** The command menu in one language, as setMyCommands takes it. */
export function commandMenu(t: Translate): BotCommand[] {
  return COMMANDS.map((command) => ({ command, description: t(`cmd-${command}`) }));
}
