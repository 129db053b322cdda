"""The embedding space of the stored vectors: the model that made them and their dimension."""

import asyncpg

from shared.errors import ConfigurationChanged

# every vector column and its HNSW index; all share one embedding space
VECTOR_COLUMNS = [
    ("file_chunks", "embedding", "file_chunks_embedding_idx"),
    ("journal", "embedding", "journal_embedding_idx"),
]


_SPACE_LOCK_ID = 4_242_002  # serialises replicas that start at the same time


class EmbeddingSpaceMismatch(RuntimeError):
    pass


async def stored_dimension(conn: asyncpg.Connection | asyncpg.Pool) -> int:
    """The dimension the schema declares for vectors (pgvector keeps it as the type modifier)."""
    table, column, _ = VECTOR_COLUMNS[0]
    return await conn.fetchval(
        "SELECT atttypmod FROM pg_attribute WHERE attrelid = $1::regclass AND attname = $2",
        table,
        column,
    )


async def ensure_space(
    pool: asyncpg.Pool, *, model: str, dimension: int, index_chunks: bool
) -> None:
    """Adopt the embedder's space while no vectors exist; otherwise refuse a different one.
    File chunks' vectors get their HNSW index if `index_chunks` (see match_chunk_index)."""
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SELECT pg_advisory_xact_lock($1)", _SPACE_LOCK_ID)
        stored = await conn.fetchrow("SELECT model, dimension FROM embedding_space")
        schema_dimension = await stored_dimension(conn)
        if stored is None or (stored["model"], schema_dimension) != (model, dimension):
            if await has_vectors(conn):
                stored_model = stored["model"] if stored else "an unrecorded model"
                raise EmbeddingSpaceMismatch(
                    f"The stored embeddings come from {stored_model} ({schema_dimension}"
                    f" dimensions), but this process embeds with {model} ({dimension}"
                    " dimensions); they cannot be compared. Run `artisan reembed` with the new"
                    " settings to re-embed everything, or restore the previous embedding"
                    " settings."
                )
            await switch_space(conn, model=model, dimension=dimension)
        await match_chunk_index(conn, wanted=index_chunks)


async def space_is(conn: asyncpg.Connection, *, model: str, dimension: int) -> bool:
    """The stored vectors are `model`'s, of `dimension` (or there is no space yet); the space
    stays so until the caller's transaction ends."""
    stored = await conn.fetchrow("SELECT model, dimension FROM embedding_space FOR SHARE")
    return stored is None or (stored["model"], stored["dimension"]) == (model, dimension)


async def require_space(conn: asyncpg.Connection, *, model: str, dimension: int) -> None:
    """Before storing a vector: the space may have been switched (`artisan reembed`) since this
    process started; then it must not write another model's vectors."""
    if not await space_is(conn, model=model, dimension=dimension):
        stored = await conn.fetchrow("SELECT model, dimension FROM embedding_space")
        raise ConfigurationChanged(
            f"the embedding space is now {stored['model']} ({stored['dimension']} dimensions);"
            f" this process embeds with {model} ({dimension}): restart it with the new settings"
        )


async def has_vectors(conn: asyncpg.Connection | asyncpg.Pool) -> bool:
    for table, column, _ in VECTOR_COLUMNS:
        if await conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM {table} WHERE {column} IS NOT NULL)"):
            return True
    return False


async def switch_space(conn: asyncpg.Connection, *, model: str, dimension: int) -> None:
    """Clear every vector and make the schema hold `dimension`-sized vectors of `model`."""
    async with conn.transaction():  # nested in ensure_space's, or on its own from reembed
        for table, column, index in VECTOR_COLUMNS:
            await conn.execute(f"DROP INDEX IF EXISTS {index}")
            await conn.execute(f"UPDATE {table} SET {column} = NULL")
            await conn.execute(
                f"ALTER TABLE {table} ALTER COLUMN {column} TYPE vector({dimension})"
            )
            await _create_index(conn, table, column, index)
        await conn.execute(
            "INSERT INTO embedding_space (model, dimension) VALUES ($1, $2)"
            " ON CONFLICT (singleton) DO UPDATE SET model = $1, dimension = $2",
            model,
            dimension,
        )


async def match_chunk_index(conn: asyncpg.Connection, *, wanted: bool) -> None:
    """Build or drop file chunks' HNSW index. It is wanted while file search ranks by vectors
    (ARTISAN_SEARCH_VECTOR_WEIGHT > 0, the default with a real embedding model). The hashed
    embedder's weight is 0: nothing reads its index, and keeping it up over 1,024 dimensions was
    half of PostgreSQL's CPU while files were ingested (tests/benchmarks/throughput.py)."""
    table, column, index = VECTOR_COLUMNS[0]
    exists = await conn.fetchval("SELECT to_regclass($1) IS NOT NULL", index)
    if wanted and not exists:
        await _create_index(conn, table, column, index)
    elif exists and not wanted:
        await conn.execute(f"DROP INDEX {index}")


async def _create_index(conn: asyncpg.Connection, table: str, column: str, index: str) -> None:
    await conn.execute(f"CREATE INDEX {index} ON {table} USING hnsw ({column} vector_cosine_ops)")
