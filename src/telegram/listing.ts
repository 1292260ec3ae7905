import type { BotContext } from "./bot-context";

// The last numbered list a chat was shown (/recall, /search), so that `/forget 3` means the third
// item a person saw, not whatever is third now. Kept in the chat's object, one list per chat.

export interface ListedItem {
  kind: "memory" | "note";
  id: string;
}

const LISTING = "listing";

/** Remembers what the numbers of the list just sent stand for. */
export function saveListing(ctx: BotContext, items: ListedItem[]): void {
  ctx.services.state.put(LISTING, items);
}

/** The item numbered `n` (from 1) in the chat's last list, if there is one. */
export function listedItem(ctx: BotContext, n: number): ListedItem | undefined {
  return ctx.services.state.get<ListedItem[]>(LISTING)?.[n - 1];
}
