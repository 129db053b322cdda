"""The embedded NATS and PostgreSQL, SIGKILLed mid-pipeline, come back by themselves: Stack.heal
(what `artisan up` runs twice a second) restarts them on their port, data and token, every client
finds them again, /readyz returns to 200 and every uploaded file ends ready. And the embedded NATS
takes no client without its token, which is on no command line and in no file."""

import asyncio
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import nats
import psutil
import pytest
from nats.errors import Error as NatsError
from pydantic import SecretStr

from shared.bus import create_broker
from shared.launcher.embedded import (
    POSTGRES_MALLOC_ENV,
    EmbeddedNats,
    EmbeddedPostgres,
    running_nats_token,
)
from shared.launcher.stack import Stack, wait_until_ready
from tests.conftest import TEST_ENV
from tests.fixtures import documents
from tests.helpers import (
    assert_exact_coverage,
    client_for_new_user,
    import_turns,
    own_stack,
    wait_journaled,
)

logger = logging.getLogger(__name__)
HEAL_EVERY_SECONDS = 0.5  # as `artisan up`
SETTLE_SECONDS = 120.0
WRONG_TOKEN = "artisan_" + "0" * 64
HISTORY = [
    {
        "persona": "stefan",
        "user_message": f"We decided to move release {n} to Monday.",
        "ai_response": "ok",
    }
    for n in range(12)
]


class Healer(threading.Thread):
    """Stack.heal in a loop beside the test, as `artisan up` runs it; when each thing came back."""

    def __init__(self, stack: Stack) -> None:
        super().__init__(daemon=True)
        self.stack = stack
        self.healed: list[tuple[float, str]] = []
        self._stopping = threading.Event()

    def run(self) -> None:
        while not self._stopping.wait(HEAL_EVERY_SECONDS):
            self.healed.extend((time.monotonic(), name) for name in self.stack.heal())

    def stop(self) -> None:
        self._stopping.set()
        self.join()

    def wait_for(self, name: str, since: float, timeout: float = 60) -> float:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if times := [at for at, healed in self.healed if healed == name and at >= since]:
                return times[0]
            time.sleep(0.05)
        raise AssertionError(f"{name} was not restarted within {timeout:.0f} s")


@pytest.fixture(scope="module")
def healer(tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path) -> Iterator[Healer]:
    with own_stack(
        tmp_path_factory.mktemp("healing"), env=TEST_ENV, pgdata=pgdata_template
    ) as stack:
        healer = Healer(stack)
        healer.start()
        try:
            yield healer
        finally:
            healer.stop()


def embedded_nats(stack: Stack) -> EmbeddedNats:
    return next(part for part in stack.embedded if isinstance(part, EmbeddedNats))


def embedded_postgres(stack: Stack) -> EmbeddedPostgres:
    return next(part for part in stack.embedded if isinstance(part, EmbeddedPostgres))


async def _ignore(_: Exception) -> None:
    """nats-py's default error callback logs every refused attempt with a traceback."""


async def test_the_embedded_nats_refuses_a_client_without_its_token(healer: Healer) -> None:
    url = healer.stack.nats_url
    with pytest.raises(NatsError, match="Authorization Violation"):
        await nats.connect(url, allow_reconnect=False, error_cb=_ignore)
    with pytest.raises(NatsError, match="Authorization Violation"):
        await nats.connect(
            url, token="artisan_" + "0" * 64, allow_reconnect=False, error_cb=_ignore
        )
    # a service with a wrong token fails at once instead of retrying forever
    wrong = create_broker(url, token=SecretStr(WRONG_TOKEN))
    with pytest.raises(NatsError, match="Authorization Violation"):
        async with asyncio.timeout(10):
            await wrong.start()
    right = create_broker(url)  # the token start_stack left in this process's environment
    await right.start()
    try:
        assert await right.ping(timeout=2)
    finally:
        await right.stop()


def test_the_token_is_on_no_command_line_and_in_no_file(healer: Healer) -> None:
    server = embedded_nats(healer.stack)
    token = server.token.get_secret_value()
    pids = [server.process.pid, *(p.process.pid for p in healer.stack.supervisor.processes)]
    for pid in pids:
        assert token not in " ".join(psutil.Process(pid).cmdline())
    data_dir = server.store_dir.parent
    files = [path for path in data_dir.rglob("*") if path.is_file()]
    assert any(path.name == "auth.conf" for path in files) and len(files) > 100
    for path in files:
        assert token.encode() not in path.read_bytes(), path
    # what `artisan reembed` does to reach a running `artisan up`'s NATS
    assert running_nats_token(server.store_dir) == server.token


async def test_a_killed_nats_comes_back_and_every_file_becomes_ready(healer: Healer) -> None:
    stack = healer.stack
    server = embedded_nats(stack)
    old_pid = server.process.pid
    await _kill_mid_pipeline(healer, "nats-server", lambda: os.kill(old_pid, signal.SIGKILL))
    assert server.process.pid != old_pid and server.is_alive()


# SIGKILL: a crash; SIGINT: PostgreSQL's "fast" shutdown (what an operator's restart does)
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=["killed", "fast-shutdown"])
async def test_a_stopped_postgres_comes_back_and_every_file_becomes_ready(
    healer: Healer, how: signal.Signals
) -> None:
    postgres = embedded_postgres(healer.stack)
    pid_file = postgres.server.pgdata / "postmaster.pid"  # type: ignore[attr-defined]
    old_pid = int(pid_file.read_text().split()[0])
    assert POSTGRES_MALLOC_ENV.items() <= _environment(old_pid).items()
    await _kill_mid_pipeline(healer, "postgres", lambda: os.kill(old_pid, how))
    new_pid = int(pid_file.read_text().split()[0])
    assert new_pid != old_pid and postgres.is_alive()
    # restarted as it was started: glibc keeps freed memory for the next statement
    assert POSTGRES_MALLOC_ENV.items() <= _environment(new_pid).items()


def _environment(pid: int) -> dict[str, str]:
    entries = Path(f"/proc/{pid}/environ").read_bytes().decode().split("\0")
    return dict(entry.split("=", 1) for entry in entries if "=" in entry)


async def _kill_mid_pipeline(healer: Healer, name: str, kill: Callable[[], None]) -> None:
    """Upload a file of every format and import turns, kill `name` while they are processed, and
    time the heal: every file ready, every turn journaled."""
    stack = healer.stack
    client = await client_for_new_user(stack, f"{name}-kill")
    try:
        turns = await import_turns(client, HISTORY)
        ids = await _upload_every_format(client)
        statuses = [await _status(client, file_id) for file_id in ids]
        killed_at = time.monotonic()
        kill()
        restarted_at = await asyncio.to_thread(healer.wait_for, name, killed_at)
        await asyncio.to_thread(wait_until_ready, stack.gateway_url, stack.supervisor, 60)
        ready_at = time.monotonic()
        await _wait_all_ready(client, ids)
        await wait_journaled(client, [turn["id"] for turn in turns], timeout=SETTLE_SECONDS)
        settled_at = time.monotonic()
        await _assert_whole(client, ids)
    finally:
        await client.aclose()
    logger.warning(  # the figures of the report (see them with --log-cli-level=WARNING)
        f"{name} stopped with {statuses.count('processing')} of {len(ids)} files in the"
        f" pipeline: restarted after {restarted_at - killed_at:.2f} s, /readyz 200 after"
        f" {ready_at - killed_at:.2f} s, every file ready and turn journaled after"
        f" {settled_at - killed_at:.2f} s"
    )
    assert "processing" in statuses, "the kill came after the pipeline had finished"


async def _upload_every_format(client: httpx.AsyncClient) -> list[str]:
    parts = [("files", item) for item in sorted(documents.every_format().items())]
    response = await client.post("/v1/files", files=parts)
    assert response.status_code == 202, response.text
    return [record["id"] for record in response.json()["items"]]


async def _status(client: httpx.AsyncClient, file_id: str) -> str | None:
    """A file's status, or None while the gateway cannot answer (its database is away)."""
    try:
        response = await client.get(f"/v1/files/{file_id}")
    except httpx.TransportError:
        return None
    return response.json()["status"] if response.status_code == 200 else None


async def _wait_all_ready(client: httpx.AsyncClient, ids: list[str]) -> None:
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        statuses = [await _status(client, file_id) for file_id in ids]
        assert "failed" not in statuses, statuses
        if statuses.count("ready") == len(ids):
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"files not ready after {SETTLE_SECONDS:.0f} s: {statuses}")


async def _assert_whole(client: httpx.AsyncClient, ids: list[str]) -> None:
    """Nothing lost or stored twice: each file's chunks cover its text exactly once."""
    for file_id in ids:
        text = (await client.get(f"/v1/files/{file_id}/content")).text
        chunks = (await client.get(f"/v1/files/{file_id}/chunks")).json()["items"]
        assert_exact_coverage(text, chunks)
