import { eq, sql } from "drizzle-orm";
import type { Update } from "grammy/types";
import { isoNow } from "../clock";
import { telegramUpdates } from "../db/schema";
import { directoryOf } from "../db/client";
import type { Deps } from "../deps";
import { deleteWhere, inRounds, type RetentionStep } from "../notes/retention";

/** How long an update's claim is kept: Telegram gives up re-delivering long before. */
export const UPDATE_CLAIM_DAYS = 7;

/** Claims an update id; false when it was claimed before (a re-delivery), in one statement. */
export async function claimUpdate(deps: Deps, updateId: number): Promise<boolean> {
  const db = directoryOf(deps);
  const { clock } = deps;
  const claimed = await db
    .insert(telegramUpdates)
    .values({ updateId, receivedAt: isoNow(clock) })
    .onConflictDoNothing()
    .returning({ updateId: telegramUpdates.updateId });
  return claimed.length > 0;
}

/** Gives a claim back when the update could not be handed on, so Telegram's re-delivery is handled. */
export async function releaseUpdate(deps: Deps, updateId: number): Promise<void> {
  const db = directoryOf(deps);
  await db.delete(telegramUpdates).where(eq(telegramUpdates.updateId, updateId));
}

/** Where an update happens: its chat, the sender's language; null for updates the bot does not handle. */
export function chatOfUpdate(update: Update): { chatId: number; languageCode: string | undefined } | null {
  const message = update.message ?? update.edited_message;
  if (message) return { chatId: message.chat.id, languageCode: message.from?.language_code };
  const callback = update.callback_query;
  if (callback) return { chatId: callback.message?.chat.id ?? callback.from.id, languageCode: callback.from.language_code };
  return null;
}

/** Daily retention: update claims older than UPDATE_CLAIM_DAYS. */
export const TELEGRAM_RETENTION_STEPS: RetentionStep[] = [
  {
    name: "telegram_update_claims",
    run: (deps, now, o) => {
      const before = new Date(now.getTime() - UPDATE_CLAIM_DAYS * 86_400_000).toISOString();
      return inRounds(o, () =>
        deleteWhere(deps, sql`telegram_updates`, sql`select rowid from telegram_updates where received_at < ${before} limit ${o.batchSize}`),
      );
    },
  },
];
