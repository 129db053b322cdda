-- What the connected language model does, chosen in Settings with the models (the same row,
-- version and NOTIFY, so every service uses it from its next call on): 'all' (answers and
-- reading files: classify, chunk, cut, summaries) or 'answers' (reading files keeps the offline
-- rules). NULL: not chosen in Settings, so ARTISAN_LLM_ROLES decides.
ALTER TABLE model_settings ADD COLUMN llm_roles TEXT CHECK (llm_roles IN ('all', 'answers'));
