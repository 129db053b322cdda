"""`artisan upload` following a file whose gateway is stopped mid-progress (issue 29, finding 13:
it sat at "20% Analyzing document…" for 69 minutes, saying nothing). The real CLI process
against a system of its own, whose gateway process is killed or stopped: the CLI says so within
seconds, retries, and either ends with what became of the file after the bound, or follows the
file to the end when the gateway is back in time."""

import asyncio
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from shared.launcher.stack import Stack, wait_until_ready
from tests.conftest import TEST_ENV
from tests.helpers import client_for_new_user, own_stack
from tests.integration.test_file_sync import _read_until, start_cli

pytestmark = pytest.mark.asyncio(loop_scope="session")

SAY_AT_ONCE_SECONDS = 5.0  # the lost-connection line comes within this of the stop
SETTLE_SECONDS = 60  # an upper bound for a step to finish, never a measured duration


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path) -> Iterator[Stack]:
    with own_stack(
        tmp_path_factory.mktemp("lost-server"), env=TEST_ENV, pgdata=pgdata_template
    ) as stack:
        yield stack


def stop_gateway(stack: Stack, how: signal.Signals) -> None:
    """Stop the gateway process as an operator would (SIGTERM) or as a crash does (SIGKILL);
    it stays down until `start_gateway`."""
    for service in stack.supervisor.running("gateway"):
        service.process.send_signal(how)
        service.process.wait(timeout=SETTLE_SECONDS)
    stack.supervisor.kill("gateway")  # forgets it: nothing restarts it behind the test's back


def start_gateway(stack: Stack) -> None:
    stack.supervisor.start("gateway")
    wait_until_ready(stack.gateway_url, stack.supervisor)


async def start_upload(
    stack: Stack, path: Path, bound_seconds: float
) -> tuple[asyncio.subprocess.Process, list[str]]:
    """`artisan upload PATH`, read until the file shows as received (the chunker is stopped, so
    the file waits: processing, not finished; a small note skips the extractor)."""
    client = await client_for_new_user(stack, "lost-server")
    async with client:
        key = client.headers["Authorization"].removeprefix("Bearer ")
    env = {
        **os.environ,
        "ARTISAN_URL": stack.gateway_url,
        "ARTISAN_API_KEY": key,
        "ARTISAN_RECONNECT_SECONDS": str(bound_seconds),
    }
    return await start_cli(env, "upload", str(path), until="%")


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["killed", "stopped"])
async def test_a_lost_gateway_is_said_at_once_and_the_upload_ends_after_the_bound(
    stack: Stack, tmp_path: Path, how: signal.Signals
) -> None:
    path = tmp_path / f"memo-{how.name}.md"
    path.write_text(f"# Memo\n\nThe {how.name} test's memo: the release moves to Monday.\n")
    stack.supervisor.kill("chunker")  # the file waits, received
    try:
        process, lines = await start_upload(stack, path, bound_seconds=6)
        assert process.stdout is not None
        stopped_at = time.monotonic()
        stop_gateway(stack, how)
        lost = f"lost the connection to Artisan at {stack.gateway_url}"
        await asyncio.wait_for(_read_until(process.stdout, lines, lost), SETTLE_SECONDS)
        said_after = time.monotonic() - stopped_at
        rest, _ = await asyncio.wait_for(process.communicate(), SETTLE_SECONDS)
    finally:
        start_gateway(stack)
        stack.supervisor.start("chunker")
    output = "".join(lines) + rest.decode()
    assert said_after < SAY_AT_ONCE_SECONDS, output
    assert "retrying in 2 s…" in output
    assert process.returncode == 1, output
    assert f"error: Artisan at {stack.gateway_url} has not answered for" in output
    # the file was received: it carries on server-side, and the user is told how to check
    received = output.splitlines().index(
        next(line for line in output.splitlines() if line.startswith("received by Artisan"))
    )
    assert output.splitlines()[received + 1] == f"  {path}", output
    assert "`artisan files`" in output


async def test_a_gateway_back_within_the_bound_is_followed_to_the_end(
    stack: Stack, tmp_path: Path
) -> None:
    path = tmp_path / "memo-back.md"
    path.write_text("# Memo\n\nThe gateway comes back before the CLI gives up.\n")
    stack.supervisor.kill("chunker")  # the file waits, received
    try:
        process, lines = await start_upload(stack, path, bound_seconds=SETTLE_SECONDS)
        assert process.stdout is not None
        stop_gateway(stack, signal.SIGKILL)
        lost = f"lost the connection to Artisan at {stack.gateway_url}"
        await asyncio.wait_for(_read_until(process.stdout, lines, lost), SETTLE_SECONDS)
    finally:
        start_gateway(stack)
        stack.supervisor.start("chunker")
    back = f"reconnected to Artisan at {stack.gateway_url}"
    await asyncio.wait_for(_read_until(process.stdout, lines, back), SETTLE_SECONDS)
    rest, _ = await asyncio.wait_for(process.communicate(), SETTLE_SECONDS)
    output = "".join(lines) + rest.decode()
    assert process.returncode == 0, output
    assert "1 ready, 0 failed" in output
