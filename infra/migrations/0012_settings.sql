-- The instance's admin (the local user of `artisan up`, or one `artisan users admin NAME` names)
-- may connect models in the Settings panel.
ALTER TABLE users ADD COLUMN is_admin BOOLEAN NOT NULL DEFAULT false;

-- The models the admin connected, one row: what every service uses over the ARTISAN_LLM_* and
-- embedding environment variables. API keys are Fernet tokens sealed with ARTISAN_SECRETS_KEY,
-- which lives outside the database (shared/secret_box.py); `version` rises with every save, and
-- a service that runs older settings reloads them before its next message.
CREATE TABLE model_settings (
    singleton      BOOLEAN PRIMARY KEY DEFAULT true CHECK (singleton),
    version        BIGINT NOT NULL,
    llm_base_url   TEXT NOT NULL,
    llm_model      TEXT NOT NULL,
    llm_api_key    BYTEA,
    embed_provider TEXT NOT NULL,
    embed_base_url TEXT NOT NULL,
    embed_model    TEXT NOT NULL,
    embed_api_key  BYTEA,
    updated_by     UUID REFERENCES users(id) ON DELETE SET NULL,
    updated_at     TIMESTAMPTZ NOT NULL DEFAULT now()
);
