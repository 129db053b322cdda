"""Entry point of the context service."""

import asyncpg

from services.context.handlers import router
from shared.db.embedding_space import EmbeddingSpaceMismatch, ensure_space
from shared.providers import registry
from shared.service import RefusedToStart, run_service


async def check_embedding_space(pool: asyncpg.Pool) -> None:
    """Questions are embedded to search stored vectors: both must come from one model."""
    embedder = registry.embedder()
    try:
        await ensure_space(pool, model=embedder.model, dimension=embedder.dimension)
    except EmbeddingSpaceMismatch as exc:
        raise RefusedToStart(str(exc)) from exc


def main() -> None:
    run_service("context", router, startup_checks=[check_embedding_space])


if __name__ == "__main__":
    main()
