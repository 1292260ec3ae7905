-- Clients (hosted assistants, IDEs) a person has let into one mind over OAuth. The tokens
-- themselves live in the OAuth provider's KV namespace; this row is what the web UI lists and
-- what every /mcp call checks, so a revocation stops the client at once.
CREATE TABLE oauth_grants (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  mind_id TEXT NOT NULL REFERENCES minds(id) ON DELETE CASCADE,
  agent TEXT,
  client_id TEXT NOT NULL,
  client_name TEXT NOT NULL,
  redirect_host TEXT NOT NULL,
  scope TEXT NOT NULL,
  created_at TEXT NOT NULL,
  last_used_at TEXT,
  revoked_at TEXT
);
CREATE INDEX oauth_grants_mind ON oauth_grants(mind_id, created_at);
CREATE INDEX oauth_grants_account_client ON oauth_grants(account_id, client_id);
