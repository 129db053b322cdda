"""The gateway's own progress events (an upload queued, a retry, the dispatcher's stages) reach
its SSE streams directly and once; the other replicas get them over NATS. Real NATS."""

import asyncio
import uuid

import nats
import pytest
from nats.aio.msg import Msg

from services.gateway.dispatch.progress_hub import GatewayProgress, ProgressHub, Signal, connect_hub
from shared.bus import create_broker
from shared.config import InfraSettings
from shared.contracts import ProgressEvent, progress_subject, progress_wildcard
from shared.launcher.stack import Stack
from tests.fixtures.rows import queued_file_row

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def witness(nats_url: str) -> tuple[nats.NATS, "asyncio.Queue[Msg]"]:
    """Another replica's connection: it sees what crosses NATS."""
    token = InfraSettings().nats_token
    client = await nats.connect(nats_url, token=token.get_secret_value() if token else None)
    seen: asyncio.Queue[Msg] = asyncio.Queue()
    await client.subscribe(progress_wildcard(), cb=seen.put)
    await client.flush()
    return client, seen


@pytest.mark.parametrize("no_echo", [True, False], ids=["gateway", "echoing connection"])
async def test_an_event_the_gateway_commits_reaches_its_streams_once(
    system: Stack, no_echo: bool
) -> None:
    user = uuid.uuid4()
    hub = ProgressHub()
    broker = create_broker(system.nats_url, no_echo=no_echo)
    await broker.start()
    other_replica, crossed = await witness(system.nats_url)
    try:
        await connect_hub(broker, hub)
        with hub.subscribe(user) as stream:
            row = queued_file_row(user)
            await GatewayProgress(hub, broker).announce(row)
            assert (await stream.next(0)).file_id == row["id"]  # there before any network hop
            assert (
                ProgressEvent.model_validate_json(
                    (await asyncio.wait_for(crossed.get(), 10)).data
                ).file_id
                == row["id"]
            )
            # NATS delivers in order: an echo of the event would reach the gateway before this
            marker = ProgressEvent(
                file_id=uuid.uuid4(), status="processing", stage="queued", progress=5
            )
            await other_replica.publish(
                progress_subject(user, marker.file_id), marker.model_dump_json().encode()
            )
            later = [await stream.next(10) for _ in range(1 if no_echo else 2)]
            expected = [marker.file_id] if no_echo else [row["id"], marker.file_id]
            assert [event.file_id for event in later] == expected  # type: ignore[union-attr]
            assert await stream.next(0) is Signal.IDLE
    finally:
        await other_replica.close()
        await broker.stop()
