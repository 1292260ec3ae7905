-- Recall orders a mind's memories by priority rank, then recency. Without an index on exactly
-- that order every recall read and sorted the whole mind; with it, recall reads only the rows
-- it returns (see bench/results/latest.md, "Search and recall latency as one mind grows").
-- The CASE expression must stay identical to priorityRank in src/memory/filters.ts.
CREATE INDEX memories_mind_recall ON memories(
  mind_id,
  (case priority when 'critical' then 3 when 'high' then 2 when 'normal' then 1 else 0 end) DESC,
  updated_at DESC,
  id DESC
);
