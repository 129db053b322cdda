-- The chat tools the admin switches on in Settings, saved with the models (the same row, the
-- same version and NOTIFY, so every chat process uses the switch from its next answer on).
-- NULL: not chosen in Settings, so ARTISAN_WEATHER_TOOL (off unless set) decides.
ALTER TABLE model_settings ADD COLUMN weather_tool BOOLEAN;
