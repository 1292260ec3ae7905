-- How many of the memories hold each indexed term. Every term belongs to one mind (0013), so a
-- term's count is its count within the mind: search weighs words by it, the way bm25 would if
-- the mind had the index to itself.
CREATE VIRTUAL TABLE memories_fts_terms USING fts5vocab(memories_fts, 'row');
