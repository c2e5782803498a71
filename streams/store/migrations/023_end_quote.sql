-- The user's words that ended a fact (a closure: "I sold my Civic last week"), kept on the
-- copy that carries the end, so a newer version of the episode that no longer says them
-- can take the end back (streams/store/retraction.py).
ALTER TABLE facts ADD COLUMN IF NOT EXISTS end_quote text;
