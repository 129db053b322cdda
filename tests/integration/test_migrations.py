"""The schema comes only from the versioned migrations, which apply cleanly and only once."""

import asyncpg
import pytest

from shared.db.migrations import apply_migrations, migration_files
from shared.launcher.stack import Stack

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_every_migration_is_recorded_and_reapplying_changes_nothing(
    system: Stack, db: asyncpg.Pool
) -> None:
    recorded = [
        r["name"] for r in await db.fetch("SELECT name FROM schema_migrations ORDER BY name")
    ]
    assert recorded == [p.name for p in migration_files()]
    assert await apply_migrations(system.database_url) == []


async def test_schema_has_the_designed_tables_and_indexes(db: asyncpg.Pool) -> None:
    tables = {r["tablename"] for r in await db.fetch("SELECT tablename FROM pg_tables")}
    assert {
        "users",
        "files",
        "file_contents",
        "file_chunks",
        "model_calls",
        "embedding_space",
    } <= tables
    indexes = {
        r["indexname"]: r["indexdef"]
        for r in await db.fetch("SELECT indexname, indexdef FROM pg_indexes")
    }
    # file chunks' HNSW index follows the embedding space: the suite's hashed vectors have none
    # (tests/integration/test_embedding_space.py)
    assert "hnsw" in indexes["journal_embedding_idx"]
    assert "file_chunks_embedding_idx" not in indexes
    assert "gin" in indexes["file_chunks_search_idx"]


async def test_deleting_a_file_cascades_by_foreign_key(db: asyncpg.Pool) -> None:
    rules = await db.fetch(
        """SELECT conrelid::regclass::text AS child, confdeltype::text AS confdeltype
           FROM pg_constraint WHERE contype = 'f' AND confrelid = 'files'::regclass"""
    )
    assert {r["child"]: r["confdeltype"] for r in rules} == {
        "file_contents": "c",
        "file_chunks": "c",
        "model_calls": "c",
        "documents": "n",  # a meeting summary outlives its transcript, its source left unset
    }
