"""The models the admin saved in Settings, and how they take the place of the environment's."""

from pydantic import BaseModel, SecretStr

from shared.config import REMOTE_EMBEDDERS, EmbedProvider, LlmRoles, ModelSettings


class SavedModels(BaseModel):
    """The models the admin connected in Settings (keys already unsealed): they replace the
    environment's chat endpoint and embedder as a whole, so a key from the environment is never
    sent to an address it was not given for."""

    llm_base_url: str = ""
    llm_model: str = ""
    llm_api_key: SecretStr | None = None
    embed_provider: EmbedProvider = "local"
    embed_base_url: str = ""
    embed_model: str = ""
    embed_api_key: SecretStr | None = None
    weather_tool: bool | None = None  # None: not chosen in Settings, the environment decides
    llm_roles: LlmRoles | None = None  # None: not chosen in Settings, the environment decides

    def over(self, env: ModelSettings) -> ModelSettings:
        """The environment's settings with these models in place of its own."""
        update: dict[str, object] = {
            "llm_base_url": self.llm_base_url,
            "llm_api_key": self.llm_api_key,
            "llm_model": self.llm_model or env.llm_model,
            "embed_provider": self.embed_provider,
        }
        for choice in ("weather_tool", "llm_roles"):
            if getattr(self, choice) is not None:
                update[choice] = getattr(self, choice)
        if self.embed_provider in REMOTE_EMBEDDERS:
            key, url, model = _EMBEDDER_FIELDS[self.embed_provider]
            update |= {
                key: self.embed_api_key,
                url: self.embed_base_url,
                model: self.embed_model or ModelSettings.model_fields[model].default,
            }
        return env.model_copy(update=update)

    @classmethod
    def of(cls, settings: ModelSettings) -> "SavedModels":
        """The models some settings use, as Settings would save them."""
        provider = settings.embedder_kind
        fields = _EMBEDDER_FIELDS.get(provider)
        key, url, model = (getattr(settings, name) for name in fields) if fields else (None, "", "")
        return cls(
            llm_base_url=settings.llm_base_url,
            llm_model=settings.llm_model,
            llm_api_key=settings.llm_api_key,
            embed_provider=provider,
            embed_base_url=url,
            embed_model=model,
            embed_api_key=key,
            weather_tool=settings.weather_tool,
            llm_roles=settings.llm_roles,
        )


# each remote embedder's key, base URL and model among ModelSettings' fields
_EMBEDDER_FIELDS = {
    "voyage": ("voyage_api_key", "voyage_base_url", "voyage_model"),
    "openai": ("openai_api_key", "openai_base_url", "openai_embed_model"),
}
