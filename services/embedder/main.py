"""Entry point of the embedder service."""

import asyncpg

from services.embedder.handlers import router
from shared.db.embedding_space import EmbeddingSpaceMismatch, ensure_space
from shared.providers import registry
from shared.service import RefusedToStart, run_service


async def check_embedding_space(pool: asyncpg.Pool) -> None:
    """Never mix vectors of two models: refuse to start with a different one."""
    embedder = registry.embedder()
    try:
        await ensure_space(pool, model=embedder.model, dimension=embedder.dimension)
    except EmbeddingSpaceMismatch as exc:
        raise RefusedToStart(str(exc)) from exc


def main() -> None:
    run_service("embedder", router, startup_checks=[check_embedding_space])


if __name__ == "__main__":
    main()
