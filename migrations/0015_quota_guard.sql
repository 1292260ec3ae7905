-- A table that never holds a row. A write that a quota bounds ends its D1 batch with an insert
-- into it that selects a row only when the write took the mind past the quota; the CHECK then
-- fails, and the whole batch with it. Two writes racing for a mind's last free slot are
-- serialised by D1: the second one's batch sees the first one's row and is refused.
CREATE TABLE quota_guard (
  ok INTEGER NOT NULL CONSTRAINT quota_exceeded CHECK (ok = 1)
);
