"""Settings, one class per concern, read from ARTISAN_* environment variables."""

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent


class _ArtisanSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ARTISAN_", extra="ignore")


class InfraSettings(_ArtisanSettings):
    """Where the bus and the database are; empty URLs mean 'start the embedded ones'."""

    nats_url: str = Field("", description="nats:// URL of a JetStream-enabled server")
    database_url: str = Field("", description="postgresql:// URL of a server with pgvector")
    data_dir: Path = Field(Path.home() / ".artisan", description="embedded NATS/Postgres data")
    nats_port: int = Field(4222, description="port of the embedded NATS server")
    otlp_endpoint: str = Field("", description="OTLP/HTTP endpoint; tracing is off when empty")


class GatewaySettings(_ArtisanSettings):
    host: str = "127.0.0.1"
    port: int = 8000
    max_upload_bytes: int = Field(10 * 1024 * 1024, description="per-file upload limit")
    max_files_per_upload: int = 100


class PipelineSettings(_ArtisanSettings):
    max_deliveries: int = Field(5, description="deliveries before a message fails its file")
    ack_wait_seconds: float = Field(60.0, description="redelivery delay of an unacked message")
    retry_delay_seconds: float = Field(0.5, description="delay before a failed message returns")
    embedding_dim: int = Field(1024, description="dimension of stored embeddings")
    target_chunk_words: int = Field(350, description="local chunker's preferred chunk size")


@lru_cache
def infra_settings() -> InfraSettings:
    return InfraSettings()


@lru_cache
def gateway_settings() -> GatewaySettings:
    return GatewaySettings()


@lru_cache
def pipeline_settings() -> PipelineSettings:
    return PipelineSettings()
