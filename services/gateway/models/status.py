"""Which models answer, in a user's words: what writes the answers, what reads the files (the
chat model, or the offline rules: ARTISAN_LLM_ROLES or the choice saved in Settings), what
finds the passages, and whether the chat model answers at all right now."""

from urllib.parse import urlsplit

from services.gateway.models import probe
from services.gateway.models.endpoints import refusals
from services.gateway.models.schemas import (
    ChatModelStatus,
    EmbedderStatus,
    ModelStatus,
    RoleUse,
)
from shared.config import ModelSettings, model_settings
from shared.db.users import User
from shared.models import live
from shared.models.probe import LOCAL_CHAT_MODEL, embedding_space_of
from shared.models.saved import SavedModels

OFFLINE_RULES = "offline rules"
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}
_EMBEDDERS = {
    "local": "hashed words, offline: search matches your words, not their meaning",
    "minilm": "all-MiniLM-L6-v2, offline: search matches meaning as well as words",
    "voyage": "Voyage embeddings: search matches meaning as well as words",
    "openai": "OpenAI embeddings: search matches meaning as well as words",
}
OFFLINE_HEADLINE = "Offline — answers quote your files"
OFFLINE_EXPLANATION = (
    "No language model is connected, so each answer quotes your files and what you told Artisan"
    " word for word, with citations. It does not write, summarise in its own words or advise."
)
CONNECT_HERE = (
    "To get written answers, connect a language model in Settings: any OpenAI-compatible"
    " endpoint (OpenAI, Fireworks, or Ollama and vLLM on your machine), its model and key."
)
ASK_THE_ADMIN = (
    "To get written answers, ask the admin of this Artisan (who runs `artisan up`) to connect a"
    " language model in Settings."
)
READS_FILES = (
    " It also reads your files as they arrive: it sorts them, cuts them into passages and"
    " summarises them."
)
RULES_READ_FILES = (
    " Your files are read by the offline rules (sorted, cut into passages and summarised without"
    " the model), which keeps a model on this machine free for answers."
)


def host_of(base_url: str) -> str:
    return urlsplit(base_url or probe.OPENAI_BASE_URL).hostname or ""


def source() -> str:
    return "settings" if live.models_version() else "environment"


def where(settings: ModelSettings) -> str:
    """Where the chat model runs, as a user would say it."""
    host = host_of(settings.llm_base_url)
    return "this machine" if probe.is_embedded(settings) or host in _LOOPBACK else host


def roles_of(settings: ModelSettings) -> list[RoleUse]:
    """What writes the answers and what reads the files (classify, chunk, cut, summaries)."""
    model = f"{settings.llm_model} ({where(settings)})" if settings.remote_llm else OFFLINE_RULES
    reader = model if settings.remote_ingestion else OFFLINE_RULES
    return [RoleUse(work="Answers", by=model), RoleUse(work="Reading files", by=reader)]


async def status(user: User) -> ModelStatus:
    settings = model_settings()
    common = {
        "embeddings": _embeddings(settings),
        "roles": roles_of(settings),
        "source": source(),
        "can_configure": user.is_admin,
        "weather_tool": settings.weather_tool,
        # the allowed hosts are the operator's to tell, so only the admin reads them
        "problems": [*_unreadable_keys(), *(refusals(settings) if user.is_admin else [])],
    }
    if not settings.remote_llm:
        return ModelStatus(
            offline=True,
            headline=OFFLINE_HEADLINE,
            explanation=OFFLINE_EXPLANATION,
            next_step=CONNECT_HERE if user.is_admin else ASK_THE_ADMIN,
            chat=ChatModelStatus(provider="local", model=LOCAL_CHAT_MODEL),
            **common,
        )
    model, reach = settings.llm_model, await probe.reach(settings)
    return ModelStatus(
        offline=False,
        headline=f"{model} writes the answers",
        explanation=(
            f"Answers are written by {model} at {host_of(settings.llm_base_url)} from your files"
            " and what you told Artisan, with citations, and checked against the passages they"
            f" cite.{READS_FILES if settings.remote_ingestion else RULES_READ_FILES}"
        ),
        chat=ChatModelStatus(
            provider="openai-compatible", model=model, host=host_of(settings.llm_base_url)
        ),
        reachable=reach.answers,
        unreachable=None if reach.answers else _unreachable(settings, reach, user),
        **common,
    )


def _unreachable(settings: ModelSettings, reach: probe.Reach, user: User) -> str:
    """What happened, and what to do about it (the admin can; anyone else asks them)."""
    said = (
        f"{settings.llm_model} at {where(settings)} does not answer: {reach.reason}. Answers fail"
        " until it does"
    )
    if not user.is_admin:
        return f"{said}: ask the admin of this Artisan to look at it."
    if probe.is_embedded(settings):
        return (
            f"{said}: `artisan up` restarts the model server by itself, so try again in a"
            " moment; if it stays down, see llama-server.log in Artisan's data folder, or choose"
            " another model in Settings."
        )
    return (
        f"{said}: check its address and key with Test connection in Settings, or disconnect"
        " it to answer offline."
    )


def _embeddings(settings: ModelSettings) -> EmbedderStatus:
    model, dimension = embedding_space_of(settings)
    kind = settings.embedder_kind
    embed_url = SavedModels.of(settings).embed_base_url
    return EmbedderStatus(
        provider=kind,
        model=model,
        dimension=dimension,
        host=(embed_url and host_of(embed_url)) or _default_embed_host(kind),
        description=_EMBEDDERS[kind],
    )


def _default_embed_host(kind: str) -> str | None:
    return {"voyage": "api.voyageai.com", "openai": "api.openai.com"}.get(kind)


def _unreadable_keys() -> list[str]:
    return [
        f"The saved {'chat' if name == 'llm_api_key' else 'embeddings'} API key cannot be read"
        " here (the secrets key changed): enter it again in Settings."
        for name in live.unreadable_keys()
    ]
