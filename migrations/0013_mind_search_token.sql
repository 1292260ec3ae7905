-- Every full-text index term belongs to one mind: each stem in the search columns is stored
-- behind its mind's search token (the last 12 letters and digits of the mind id, zero-padded,
-- lower case; src/memory/normalize.ts `mindSearchToken` computes the same), so a MATCH walks
-- only that mind's postings, bm25's document frequencies are the mind's own, and a query
-- built for one mind cannot match another mind's rows. The stems are space separated, so
-- putting the token in front of each is a replace. Updating the search columns fires the FTS
-- update triggers, which take each row's old terms out of its index and put the new ones in:
-- every row is indexed again, once, and no row is added or lost.

-- Two minds never share a token.
CREATE UNIQUE INDEX minds_search_token ON minds(substr('000000000000' || lower(replace(replace(id, '_', ''), '-', '')), -12));

UPDATE memories SET
  search_key = CASE search_key WHEN '' THEN '' ELSE t.token || replace(search_key, ' ', ' ' || t.token) END,
  search_content = CASE search_content WHEN '' THEN '' ELSE t.token || replace(search_content, ' ', ' ' || t.token) END,
  search_tags = CASE search_tags WHEN '' THEN '' ELSE t.token || replace(search_tags, ' ', ' ' || t.token) END,
  search_context = CASE search_context WHEN '' THEN '' ELSE t.token || replace(search_context, ' ', ' ' || t.token) END
FROM (SELECT DISTINCT mind_id, substr('000000000000' || lower(replace(replace(mind_id, '_', ''), '-', '')), -12) AS token FROM memories) AS t
WHERE t.mind_id = memories.mind_id;

UPDATE notes SET
  search_text = CASE search_text WHEN '' THEN '' ELSE t.token || replace(search_text, ' ', ' ' || t.token) END,
  search_context = CASE search_context WHEN '' THEN '' ELSE t.token || replace(search_context, ' ', ' ' || t.token) END
FROM (SELECT DISTINCT mind_id, substr('000000000000' || lower(replace(replace(mind_id, '_', ''), '-', '')), -12) AS token FROM notes) AS t
WHERE t.mind_id = notes.mind_id;

UPDATE messages SET
  search_content = CASE search_content WHEN '' THEN '' ELSE t.token || replace(search_content, ' ', ' ' || t.token) END,
  search_near = CASE search_near WHEN '' THEN '' ELSE t.token || replace(search_near, ' ', ' ' || t.token) END
FROM (SELECT DISTINCT mind_id, substr('000000000000' || lower(replace(replace(mind_id, '_', ''), '-', '')), -12) AS token FROM messages) AS t
WHERE t.mind_id = messages.mind_id;
