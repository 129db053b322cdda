"""A whole file's chunks stored finished, with their cuts and vectors (a file finished in one
step, services/chunker/small_files.py). Each row is written once: inserted bare, then updated
with its cut and again with its vector, a chunk was three row versions, each with its text's
search vector computed and indexed anew."""

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

import asyncpg
import numpy as np

from shared.db.chunks import NewChunk, chunk_id, chunk_row, drop_chunks_beyond
from shared.domain import ArtisanCut


@dataclass(frozen=True)
class FinishedChunk:
    chunk: NewChunk
    embedding: Sequence[float]
    cut: ArtisanCut | None = None  # strategic chunks only


# a re-run (a redelivery) overwrites a chunk whole: its cut and vector are of the text it holds
_UPSERT_FINISHED = """
    INSERT INTO file_chunks (id, file_id, user_id, chunk_index, chunk_type, title,
                             char_start, char_end, line_start, line_end, text, summary,
                             version_from, searchable,
                             chunk_essence, decision_arc_summary, salience_score, embedding)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
    ON CONFLICT (id) DO UPDATE SET
        (chunk_type, title, char_start, char_end, line_start, line_end, text, summary,
         chunk_essence, decision_arc_summary, salience_score, embedding)
      = (EXCLUDED.chunk_type, EXCLUDED.title, EXCLUDED.char_start, EXCLUDED.char_end,
         EXCLUDED.line_start, EXCLUDED.line_end, EXCLUDED.text, EXCLUDED.summary,
         EXCLUDED.chunk_essence, EXCLUDED.decision_arc_summary, EXCLUDED.salience_score,
         EXCLUDED.embedding)"""


async def save_finished_chunks(
    conn: asyncpg.Connection, *, file_id: UUID, user_id: UUID, finished: Sequence[FinishedChunk]
) -> None:
    """Upsert a file's finished chunks and drop any beyond them."""
    await conn.executemany(
        _UPSERT_FINISHED,
        [
            (
                *chunk_row(chunk_id(file_id, f.chunk.index), file_id, user_id, f.chunk, 1, True),
                *_cut_columns(f.cut),
                np.asarray(f.embedding, dtype=np.float32),
            )
            for f in finished
        ],
    )
    await drop_chunks_beyond(conn, file_id=file_id, count=len(finished))


def _cut_columns(cut: ArtisanCut | None) -> tuple[str | None, str | None, float | None]:
    if cut is None:
        return None, None, None
    return cut.chunk_essence, cut.decision_arc_summary, cut.salience_score
