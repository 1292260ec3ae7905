-- Telegram: idempotency claims of webhook updates, and the mind each Telegram chat talks to.

-- One row per update_id handed to a chat's object; a re-delivered update finds its claim and is
-- not handled again. Pruned by the daily retention job after 7 days.
CREATE TABLE telegram_updates (
  update_id INTEGER PRIMARY KEY,
  received_at TEXT NOT NULL
);
CREATE INDEX telegram_updates_received ON telegram_updates(received_at);

-- A private chat talks to its user's personal mind; a group chat to a mind of its own, owned by
-- the account of the person who started the bot there.
CREATE TABLE telegram_chats (
  telegram_chat_id INTEGER PRIMARY KEY,
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('private', 'group')),
  created_at TEXT NOT NULL
);
CREATE INDEX telegram_chats_mind ON telegram_chats(mind_id);
