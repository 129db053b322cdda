"""Where a pipeline service serves /metrics (the gateway serves its own on its HTTP port)."""

from functools import lru_cache

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_METRICS_PORT = 9464  # Prometheus's customary exporter port, the one containers expose


class MetricsSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ARTISAN_", extra="ignore")

    metrics_port: int = Field(
        DEFAULT_METRICS_PORT,
        ge=0,
        description="port of this process's /metrics; 0 = off. `artisan up` gives each process"
        " its own, counting up from this one",
    )
    metrics_host: str = Field(
        "0.0.0.0",
        description="address /metrics listens on: every interface, for a container's scraper;"
        " `artisan up` uses the gateway's host (ARTISAN_HOST)",
    )


@lru_cache
def metrics_settings() -> MetricsSettings:
    return MetricsSettings()
