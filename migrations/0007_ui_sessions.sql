-- Web UI logins held on the server, so logging out (here or everywhere) ends them at once.
-- id is the SHA-256 of the cookie's random nonce; the cookie itself stays signed.
CREATE TABLE ui_sessions (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  expires_at INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX ui_sessions_account ON ui_sessions(account_id, expires_at);
