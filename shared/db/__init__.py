"""PostgreSQL access: a pool with pgvector support; one repository module per table."""

import asyncpg
from pgvector.asyncpg import register_vector


async def _init_connection(conn: asyncpg.Connection) -> None:
    await register_vector(conn)


async def _keep_session(conn: asyncpg.Connection) -> None:
    """A released connection is handed on as it is (asyncpg still ends an open transaction):
    nothing here leaves session state behind — settings are SET LOCAL, locks are transaction
    locks, listeners have connections of their own — so the default reset query would be one
    wasted round trip after every query."""


async def create_pool(database_url: str, *, min_size: int = 1, max_size: int = 5) -> asyncpg.Pool:
    """A pool whose connections speak pgvector (run the migrations first: they create the type)."""
    return await asyncpg.create_pool(
        database_url,
        min_size=min_size,
        max_size=max_size,
        init=_init_connection,
        reset=_keep_session,
    )
