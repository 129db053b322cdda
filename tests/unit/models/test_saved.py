"""Saved models replace the environment's chat endpoint and embedder, each as a whole."""

from pydantic import SecretStr

from shared.config import ModelSettings
from shared.models.saved import SavedModels

ENV = ModelSettings(
    llm_base_url="https://api.fireworks.ai/inference/v1",
    llm_api_key=SecretStr("fw-env-key"),
    voyage_api_key=SecretStr("pa-env-key"),
    embed_provider=None,  # the suite pins "local" in the environment (tests/conftest.py)
)


def test_the_saved_chat_model_replaces_address_model_and_key_together() -> None:
    saved = SavedModels(llm_base_url="http://127.0.0.1:11434/v1", llm_model="llama3")
    settings = saved.over(ENV)
    assert (settings.llm_base_url, settings.llm_model) == ("http://127.0.0.1:11434/v1", "llama3")
    assert settings.llm_api_key is None  # the environment's key never goes to another address
    assert settings.embedder_kind == "local"  # saved explicitly, though a Voyage key is set


def test_offline_saved_over_a_configured_environment_is_offline() -> None:
    assert not SavedModels().over(ENV).remote_llm


def test_a_remote_embedder_gets_its_own_fields_and_defaults() -> None:
    saved = SavedModels(embed_provider="openai", embed_api_key=SecretStr("sk-embed"))
    settings = saved.over(ENV)
    assert settings.embedder_kind == "openai"
    assert settings.openai_api_key.get_secret_value() == "sk-embed"
    assert settings.openai_embed_model == "text-embedding-3-small"


def test_the_environment_reads_back_as_what_settings_would_save() -> None:
    described = SavedModels.of(ENV)
    assert described.llm_base_url == ENV.llm_base_url and described.embed_provider == "voyage"
    assert described.embed_api_key.get_secret_value() == "pa-env-key"
    again = described.over(ModelSettings())
    assert (again.llm_base_url, again.llm_api_key, again.embedder_kind) == (
        ENV.llm_base_url,
        ENV.llm_api_key,
        "voyage",
    )


def test_the_roles_saved_replace_the_environments_and_none_keeps_them() -> None:
    env = ENV.model_copy(update={"llm_roles": "answers"})
    assert not SavedModels(llm_base_url=ENV.llm_base_url).over(env).remote_ingestion
    everything = SavedModels(llm_base_url=ENV.llm_base_url, llm_roles="all").over(env)
    assert everything.llm_roles == "all" and everything.remote_ingestion
    assert SavedModels.of(env).llm_roles == "answers"
