-- A mind key may carry a name its owner gives it (the agent, tool or machine that holds it), so a
-- list of keys says which is which. Keys made before have none.
ALTER TABLE mind_keys ADD COLUMN name TEXT;
