"""PostgreSQL access: a pool with pgvector support; one repository module per table."""

import asyncpg
from pgvector.asyncpg import register_vector


class PooledConnection(asyncpg.Connection):
    """A pooled connection handed back as it is: nothing here leaves session state behind
    (settings are SET LOCAL, locks are transaction locks, listeners have connections of their
    own), so asyncpg's reset query would be one wasted round trip per query."""

    def get_reset_query(self) -> str:
        return ""


async def _init_connection(conn: asyncpg.Connection) -> None:
    await register_vector(conn)


async def create_pool(database_url: str, *, min_size: int = 1, max_size: int = 5) -> asyncpg.Pool:
    """A pool whose connections speak pgvector (run the migrations first: they create the type)."""
    return await asyncpg.create_pool(
        database_url,
        min_size=min_size,
        max_size=max_size,
        init=_init_connection,
        connection_class=PooledConnection,
    )
