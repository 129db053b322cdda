-- An instruction turn keeps the directive alone, in the user's words (shared/memory_rule.py):
-- what P3 gives the persona and the memory panel shows, without the facts said beside it.
ALTER TABLE journal ADD COLUMN instruction TEXT;
