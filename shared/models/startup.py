"""Start-up steps that build models, for the entry points that need them (services/*/main.py
passes them to run_service): the service layer itself never builds a provider."""

import asyncpg

from shared.config import model_settings
from shared.db.embedding_space import EmbeddingSpaceMismatch, ensure_space
from shared.providers import registry
from shared.service import RefusedToStart


async def check_embedding_space(pool: asyncpg.Pool) -> None:
    """For services that embed (stored vectors, or questions to search them): every vector must
    come from one model, so refuse to start with a different one."""
    embedder = registry.embedder()
    try:
        await ensure_space(
            pool,
            model=embedder.model,
            dimension=embedder.dimension,
            index_chunks=model_settings().vector_weight > 0,
        )
    except EmbeddingSpaceMismatch as exc:
        raise RefusedToStart(str(exc)) from exc


async def prepare_chat_model(pool: asyncpg.Pool) -> None:
    """For services that call the chat model: its client is built before the first message
    (importing and building it took ~0.4 s of CPU; eight compressors doing so at their first
    chunk, at once on two cores, held the first chunks back 3 s)."""
    if model_settings().remote_llm:
        registry.chat_model()


async def prepare_embedder(pool: asyncpg.Pool) -> None:
    """For services that embed small files in process (the chunker): the embedding model is
    loaded before the first message (MiniLM takes about 1.5 s of CPU per process: a note uploaded
    10 s after `artisan up` was ready took 1.39 s while its chunker loaded it, 0.09 s after)."""
    if model_settings().all_in_process:
        registry.embedder()
