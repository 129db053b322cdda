"""A small file's chunks, finished in one step, are each written once: one row version with its
cut, vector and search terms, not a bare row updated twice (each update computed and indexed
the text's search vector anew)."""

import asyncpg

from shared.db import files, users
from shared.db.chunk_results import FinishedChunk, save_finished_chunks
from shared.db.chunks import NewChunk
from shared.db.embedding_space import stored_dimension
from shared.domain import ArtisanCut
from tests.helpers import rolled_back

PLAN = NewChunk(0, "strategic", "Plan", 0, 30, 1, 1, "We ship on Friday after review.")
LOG = NewChunk(1, "factual", "Log", 30, 56, 2, 2, "The build passed twice now.")
CUT = ArtisanCut("Ship Friday.", "Decided to ship on Friday once the review is done.", 7)

# what this transaction did to file_chunks so far
WRITES = """SELECT n_tup_ins, n_tup_upd FROM pg_stat_xact_user_tables
            WHERE relname = 'file_chunks'"""


async def test_each_finished_chunk_is_one_row_version_with_its_cut_vector_and_terms(
    db: asyncpg.Pool,
) -> None:
    # everything here exists only in this transaction, rolled back at the end
    async with rolled_back(db) as conn:
        user, _ = await users.create_user(conn, name="finished")
        file, _ = await files.insert_file(
            conn,
            user_id=user.id,
            filename="plan.md",
            media_type="text/markdown",
            content_hash="finished-chunks",
            data=b"...",
        )
        vector = [1.0] + [0.0] * (await stored_dimension(conn) - 1)
        finished = [FinishedChunk(PLAN, vector, CUT), FinishedChunk(LOG, vector)]
        before = await conn.fetchrow(WRITES)
        await save_finished_chunks(conn, file_id=file["id"], user_id=user.id, finished=finished)
        after = await conn.fetchrow(WRITES)
        rows = await conn.fetch(
            """SELECT c.chunk_index, c.decision_arc_summary, c.salience_score,
                          c.embedding IS NOT NULL AS embedded,
                          (SELECT count(*) FROM chunk_terms t WHERE t.chunk_id = c.id) AS terms
                   FROM file_chunks c WHERE c.file_id = $1 ORDER BY c.chunk_index""",
            file["id"],
        )
    assert after["n_tup_ins"] - before["n_tup_ins"] == 2
    assert after["n_tup_upd"] - before["n_tup_upd"] == 0
    assert [dict(r) for r in rows] == [
        {
            "chunk_index": 0,
            "decision_arc_summary": CUT.decision_arc_summary,
            "salience_score": 7,
            "embedded": True,
            "terms": rows[0]["terms"],
        },
        {
            "chunk_index": 1,
            "decision_arc_summary": None,
            "salience_score": None,
            "embedded": True,
            "terms": rows[1]["terms"],
        },
    ]
    assert rows[0]["terms"] > 0 and rows[1]["terms"] > 0
