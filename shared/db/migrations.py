"""Versioned SQL migrations from infra/migrations, applied once each, in order, under a lock."""

import logging
from pathlib import Path

import asyncpg

from shared.config import REPO_ROOT

MIGRATIONS_DIR = REPO_ROOT / "infra" / "migrations"
_LOCK_ID = 4_242_001  # any constant: serialises concurrent start-ups
logger = logging.getLogger(__name__)


def migration_files(directory: Path = MIGRATIONS_DIR) -> list[Path]:
    return sorted(directory.glob("[0-9][0-9][0-9][0-9]_*.sql"))


async def apply_migrations(database_url: str, directory: Path = MIGRATIONS_DIR) -> list[str]:
    """Apply pending migrations; returns the names applied now."""
    conn = await asyncpg.connect(database_url)
    try:
        await conn.execute("SELECT pg_advisory_lock($1)", _LOCK_ID)
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
        )
        done = {r["name"] for r in await conn.fetch("SELECT name FROM schema_migrations")}
        applied = []
        for path in migration_files(directory):
            if path.name in done:
                continue
            async with conn.transaction():
                await conn.execute(path.read_text())
                await conn.execute("INSERT INTO schema_migrations (name) VALUES ($1)", path.name)
            logger.info("applied migration %s", path.name)
            applied.append(path.name)
        return applied
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", _LOCK_ID)
        await conn.close()
