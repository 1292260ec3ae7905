import type { Update } from "grammy/types";

/** Where an update happens: its chat, the sender's language; null for updates the bot does not handle. */
export function chatOfUpdate(update: Update): { chatId: number; languageCode: string | undefined } | null {
  const message = update.message ?? update.edited_message;
  if (message) return { chatId: message.chat.id, languageCode: message.from?.language_code };
  const callback = update.callback_query;
  if (callback) return { chatId: callback.message?.chat.id ?? callback.from.id, languageCode: callback.from.language_code };
  return null;
}
