"""The chat tools' settings. Whether the weather tool is on is a model setting
(`model_settings().weather_tool`): the admin switches it in Settings, live."""

from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

OPEN_METEO_ARCHIVE = "https://archive-api.open-meteo.com"


class ToolSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ARTISAN_", extra="ignore")

    # the endpoint's path and parameters are fixed in code; only the host moves, for tests
    weather_base_url: str = Field(
        OPEN_METEO_ARCHIVE, description="Open-Meteo archive host (tests point it at a fake)"
    )


@lru_cache
def tool_settings() -> ToolSettings:
    return ToolSettings()
