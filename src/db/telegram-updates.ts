import { eq, sql } from "drizzle-orm";
import type { Clock } from "../clock";
import { isoNow } from "../clock";
import type { Db } from "./client";
import { DAY_MS, deleteWhere, inRounds, type RetentionStep } from "./prune";
import { telegramUpdates } from "./schema";

// Telegram update ids claimed once, so a re-delivered update is handled only once.

/** How long an update's claim is kept: Telegram gives up re-delivering long before. */
export const UPDATE_CLAIM_DAYS = 7;

/** Claims an update id; false when it was claimed before (a re-delivery), in one statement. */
export async function claimUpdate(deps: { directory: Db; clock: Clock }, updateId: number): Promise<boolean> {
  const claimed = await deps.directory
    .insert(telegramUpdates)
    .values({ updateId, receivedAt: isoNow(deps.clock) })
    .onConflictDoNothing()
    .returning({ updateId: telegramUpdates.updateId });
  return claimed.length > 0;
}

/** Gives a claim back when the update could not be handed on, so Telegram's re-delivery is handled. */
export async function releaseUpdate(deps: { directory: Db; clock: Clock }, updateId: number): Promise<void> {
  await deps.directory.delete(telegramUpdates).where(eq(telegramUpdates.updateId, updateId));
}

/** Daily retention: update claims older than UPDATE_CLAIM_DAYS. */
export const TELEGRAM_RETENTION_STEPS: RetentionStep[] = [
  {
    name: "telegram_update_claims",
    run: (deps, now, o) => {
      const before = new Date(now.getTime() - UPDATE_CLAIM_DAYS * DAY_MS).toISOString();
      return inRounds(o, () =>
        deleteWhere(deps, sql`telegram_updates`, sql`select rowid from telegram_updates where received_at < ${before} limit ${o.batchSize}`),
      );
    },
  },
];
