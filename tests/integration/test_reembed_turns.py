"""`artisan reembed` re-queues every journal turn too: their vectors move to the new space and
their cuts stay as they were."""

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from shared.db import create_pool
from shared.launcher.stack import Stack
from tests.helpers import client_for_new_user, import_turns, own_stack, wait_journaled

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.fixture(scope="module")
def own_system(tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path) -> Iterator[Stack]:
    """A system of its own: re-embedding changes the whole database."""
    with own_stack(tmp_path_factory.mktemp("reembed-turns"), pgdata=pgdata_template) as stack:
        yield stack


async def test_reembed_moves_every_journal_vector_to_the_new_space(own_system: Stack) -> None:
    client = await client_for_new_user(own_system, "journal-reembedder")
    pool = await create_pool(own_system.database_url)
    try:
        turns = [
            {
                "persona": "vlad",
                "user_message": f"Pricing decision {i}: raise by {i}%.",
                "ai_response": "Test it on new customers first.",
                "created_at": f"2025-02-01T10:{i:02d}:00Z",
            }
            for i in range(20)
        ]
        ids = [r["id"] for r in await import_turns(client, turns)]
        await wait_journaled(client, ids)
        arcs_before = dict(await pool.fetch("SELECT turn_id, decision_arc_summary FROM journal"))

        env = {
            **os.environ,
            "ARTISAN_NATS_URL": own_system.nats_url,
            "ARTISAN_DATABASE_URL": own_system.database_url,
            "ARTISAN_LOCAL_EMBED_DIM": "512",
            "ARTISAN_PORT": "1",  # no gateway there: queue and return
        }
        artisan = str(Path(sys.executable).parent / "artisan")
        result = await asyncio.to_thread(
            subprocess.run,
            [artisan, "reembed"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        assert "20 journal turns" in result.stdout
        pending = await pool.fetchval(
            "SELECT count(*) FROM superjournal WHERE journal_status = 'pending'"
        )
        assert pending == 20

        own_system.supervisor.kill("embedder")
        own_system.supervisor.env["ARTISAN_LOCAL_EMBED_DIM"] = "512"
        own_system.supervisor.start("embedder")
        await wait_journaled(client, ids, timeout=60)
        dims = await pool.fetch("SELECT DISTINCT vector_dims(embedding) AS d FROM journal")
        assert [row["d"] for row in dims] == [512]
        arcs_after = dict(await pool.fetch("SELECT turn_id, decision_arc_summary FROM journal"))
        assert arcs_after == arcs_before
    finally:
        await pool.close()
        await client.aclose()
