"""Request and response bodies of /v1/settings/models: what answers, and what the admin may set.
No response carries a key: only whether one is set."""

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, SecretStr

from services.gateway.errors import storable
from shared.config import EmbedProvider, LlmRoles
from shared.models.hosts import Network, checked_host

MAX_URL_CHARS = 2000
MAX_MODEL_CHARS = 200
MAX_KEY_CHARS = 1000


def endpoint_url(value: str) -> str:
    """An http(s) address with a host, or "" (none): no key inside it, and no link-local or cloud
    metadata address (shared/models/hosts.py; its name is resolved when saved or tested)."""
    value = storable(value.strip())
    if not value:
        return ""
    checked_host(value)
    return value.rstrip("/")


EndpointUrl = Annotated[str, Field(max_length=MAX_URL_CHARS), AfterValidator(endpoint_url)]
ModelName = Annotated[str, Field(max_length=MAX_MODEL_CHARS), AfterValidator(storable)]
WriteOnlyKey = Annotated[
    SecretStr | None,
    Field(
        max_length=MAX_KEY_CHARS,
        description="write-only, never returned: omit (null) to keep the saved key — kept only for"
        ' the same address — or send "" to remove it',
    ),
]


class ModelSettingsUpdate(BaseModel):
    """The models to use: a chat endpoint (none = offline) and an embeddings provider."""

    model_config = ConfigDict(extra="forbid")

    llm_base_url: EndpointUrl = Field(
        "", description='OpenAI-compatible endpoint, e.g. https://api.openai.com/v1; "" = offline'
    )
    llm_model: ModelName = Field("", description="the model's name at that endpoint")
    llm_api_key: WriteOnlyKey = None
    embed_provider: EmbedProvider = Field(
        "local", description="local (hashed words), minilm (offline), voyage or openai"
    )
    embed_base_url: EndpointUrl = Field("", description='voyage/openai only; "" = theirs')
    embed_model: ModelName = Field("", description='voyage/openai only; "" = the default')
    embed_api_key: WriteOnlyKey = None
    weather_tool: bool | None = Field(
        None,
        description="offer the Open-Meteo weather statistics tool to the answering model; null"
        " keeps it as it is",
    )
    llm_roles: LlmRoles | None = Field(
        None,
        description="what the language model does: all (answers, and reading files: sorting,"
        " cutting into passages, summaries) or answers (files are read by the offline rules);"
        " null keeps it as it is",
    )
    reembed: bool = Field(
        False,
        description="confirms re-embedding everything stored when the embedding model changes"
        " (a 409 says when that is needed)",
    )


class ChatModelStatus(BaseModel):
    provider: Literal["local", "openai-compatible"]
    model: str = Field(description="the model that writes answers (artisan-local-1 offline)")
    host: str | None = Field(None, description="where it runs; null offline")


class EmbedderStatus(BaseModel):
    provider: EmbedProvider
    model: str
    dimension: int
    host: str | None = Field(None, description="where it runs; null offline")
    description: str = Field(description="what it is, in a user's words")


class RoleUse(BaseModel):
    work: Literal["Answers", "Reading files"]
    by: str = Field(description='e.g. "SmolLM2-135M-Instruct (this machine)" or "offline rules"')


class ModelStatus(BaseModel):
    """Which models answer, said plainly; every user may read it."""

    offline: bool = Field(description="no language model is connected: answers quote your files")
    headline: str = Field(description='e.g. "Offline — answers quote your files"')
    explanation: str = Field(description="what this mode does")
    next_step: str | None = Field(None, description="offline: how to get written answers")
    chat: ChatModelStatus
    roles: list[RoleUse] = Field(
        description="which model does which work: the answers, and reading files (classify,"
        " chunk, cut, summaries)"
    )
    reachable: bool | None = Field(
        None,
        description="the chat model answered a cheap check within the last seconds; null offline",
    )
    unreachable: str | None = Field(
        None, description="when it does not answer: what happened, and what to do"
    )
    embeddings: EmbedderStatus
    source: Literal["settings", "environment"] = Field(
        description="saved in Settings, or the ARTISAN_* environment variables"
    )
    can_configure: bool = Field(description="this user is an admin: Settings are theirs")
    weather_tool: bool = Field(
        False, description="answers may use the Open-Meteo weather statistics tool"
    )
    problems: list[str] = Field(default_factory=list, description="what needs the admin")


class EmbeddingSpace(BaseModel):
    model: str
    dimension: int
    has_vectors: bool = Field(description="changing the model re-embeds them")


class LocalModel(BaseModel):
    """The model `artisan up --model` serves on this machine, as Settings offers it."""

    running: bool
    base_url: str = Field("", description="its OpenAI-compatible address, while it runs")
    model: str = Field("", description="the name it answers to")
    how_to_start: str = Field("", description="when none runs: how to start Artisan with one")


class ModelSettingsView(BaseModel):
    """The settings as the admin's form shows them; keys only as `*_key_set`."""

    llm_base_url: str
    llm_model: str
    llm_key_set: bool
    embed_provider: EmbedProvider
    embed_base_url: str
    embed_model: str
    embed_key_set: bool
    weather_tool: bool = Field(description="the Open-Meteo weather statistics tool is offered")
    llm_roles: LlmRoles = Field(
        description="all: the model also reads files; answers: only answers"
    )
    local_model: LocalModel
    source: Literal["settings", "environment"]
    version: int = Field(description="rises with every save; 0: nothing saved yet")
    can_store_keys: bool = Field(description="ARTISAN_SECRETS_KEY is set: keys can be saved")
    minilm_installed: bool = Field(description="the offline MiniLM embedder can be chosen")
    embedding_space: EmbeddingSpace | None = None
    reembedding: int = Field(0, description="files this save sent to be re-embedded")
    llm_network: Network | None = Field(
        None,
        description="where the chat endpoint is: loopback (this machine), private (a private"
        " network), public, or unresolved (its name does not resolve now); null offline",
    )
    embed_network: Network | None = Field(
        None, description="where a remote embeddings endpoint is, as llm_network; null offline"
    )


class CheckResult(BaseModel):
    """A summary of what the endpoint answered, never its body (it may be anything)."""

    ok: bool
    message: str = Field(description="what happened, and what to do if it failed")
    latency_ms: int | None = None
    network: Network | None = Field(
        None, description="loopback, private, public or unresolved; null when nothing is tested"
    )
    status_code: int | None = Field(None, description="the endpoint's HTTP status, if it answered")
    spoke_openai: bool | None = Field(
        None,
        description="it answered in the wire format expected (OpenAI-compatible chat or"
        " embeddings); null when it did not answer",
    )
    models: list[str] = Field(
        default_factory=list, description="models the endpoint lists (GET /models), at most 20"
    )


class ConnectionReport(BaseModel):
    ok: bool = Field(description="both checks passed")
    chat: CheckResult
    embeddings: CheckResult
