"""A whole file's chunk results stored at once (cuts and vectors of a file finished in one step),
two statements however many chunks it has."""

from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

import asyncpg
import numpy as np

from shared.domain import ArtisanCut


@dataclass(frozen=True)
class ChunkResult:
    chunk_id: UUID
    text: str  # the chunk's text, so a re-split chunk is never given another chunk's results
    embedding: Sequence[float]
    cut: ArtisanCut | None = None  # strategic chunks only


async def store_results(conn: asyncpg.Connection, results: Sequence[ChunkResult]) -> None:
    cuts = [r for r in results if r.cut is not None]
    if cuts:
        await conn.executemany(
            """UPDATE file_chunks SET chunk_essence = $2, decision_arc_summary = $3,
                   salience_score = $4
               WHERE id = $1 AND text = $5""",
            [
                (r.chunk_id, c.chunk_essence, c.decision_arc_summary, c.salience_score, r.text)
                for r in cuts
                if (c := r.cut) is not None
            ],
        )
    await conn.executemany(
        "UPDATE file_chunks SET embedding = $2 WHERE id = $1 AND text = $3",
        [(r.chunk_id, np.asarray(r.embedding, dtype=np.float32), r.text) for r in results],
    )
