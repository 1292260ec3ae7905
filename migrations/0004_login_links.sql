-- One-time links that log a person into the web UI (handed out by the Telegram bot's /login).
-- Only a SHA-256 hash of the token is stored; a link works once and expires within minutes.
CREATE TABLE login_links (
  token_hash TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  mind_id TEXT REFERENCES minds(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  used_at TEXT
);
CREATE INDEX login_links_expires ON login_links(expires_at);
