"""Artisan on a three-server NATS JetStream cluster, the stream replicated on all three, every
service attached through the three URLs alone: the server leading the stream, SIGKILLed while
files are mid-pipeline, loses nothing. Every file ends ready, covered by its chunks exactly, every
chunk embedded, no file re-driven or retried and no chunk compressed twice; the killed server,
restarted, catches up."""

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
import httpx
import nats
import pytest
from nats.errors import TimeoutError as NatsTimeoutError
from nats.js import JetStreamContext
from nats.js.api import ConsumerInfo, StreamInfo
from nats.js.errors import NotFoundError

from shared.config import InfraSettings
from shared.contracts import STREAM_NAME, Consumer
from shared.db import create_pool
from shared.launcher.embedded import EmbeddedNats, free_port, new_nats_token, port_is_free
from shared.launcher.healing import InfraSupervisor
from shared.launcher.nats_cluster import start_nats_cluster
from shared.launcher.stack import NATS_ROUTE_PORT_OFFSET, Stack, start_infra
from tests.conftest import TEST_ENV
from tests.fixtures import documents
from tests.helpers import assert_exact_coverage, client_for_new_user, own_stack
from tests.integration.stuck_work import file_statuses, wait_all_ready

pytestmark = pytest.mark.asyncio(loop_scope="session")
logger = logging.getLogger(__name__)

SERVERS = 3
FILES = 20
SETTLE_SECONDS = 60.0
JETSTREAM_TIMEOUT_SECONDS = 5.0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[EmbeddedNats]]:
    data_dir = tmp_path_factory.mktemp("nats-cluster")
    ports = _free_ports(2 * SERVERS)
    # the token this process's clients already present, if a system of the suite made one
    token = InfraSettings().nats_token or new_nats_token()
    nodes = start_nats_cluster(data_dir, ports[:SERVERS], ports[SERVERS:], data_dir, token=token)
    try:
        yield nodes
    finally:
        for node in nodes:
            node.stop()


@pytest.fixture(scope="module")
def clustered(
    tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path, cluster: list[EmbeddedNats]
) -> Iterator[Stack]:
    """Every service attached to the cluster through ARTISAN_NATS_URL's three URLs; one process
    each (replicas of one service started together on a new cluster may race to create their
    durable consumer: docs/nats-cluster.md)."""
    urls = ",".join(node.url for node in cluster)
    env = {**TEST_ENV, "ARTISAN_STREAM_REPLICAS": str(SERVERS)}
    with own_stack(
        tmp_path_factory.mktemp("clustered"),
        env=env,
        compressors=1,
        nats_url=urls,
        nats_token=cluster[0].token,
        pgdata=pgdata_template,
    ) as stack:
        yield stack


async def test_the_stream_and_its_consumers_are_replicated_on_every_server(
    clustered: Stack, cluster: list[EmbeddedNats]
) -> None:
    async with _jetstream(cluster) as jetstream:
        stream = await jetstream.stream_info(STREAM_NAME)
        assert stream.config.num_replicas == SERVERS
        assert _servers_of(stream) == {node.seat.server_name for node in cluster if node.seat}
        consumer = await _consumer_once_created(jetstream, Consumer.COMPRESSOR.value)
        assert consumer.cluster is not None and len(consumer.cluster.replicas or []) == SERVERS - 1


async def _consumer_once_created(jetstream: JetStreamContext, name: str) -> ConsumerInfo:
    """The consumer's info once its service has made it and its servers elected a leader: the
    gateway, started last, may be ready a moment before the compressor has subscribed."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        try:
            info = await jetstream.consumer_info(STREAM_NAME, name)
        except NotFoundError:
            info = None
        if info and info.cluster and info.cluster.leader:
            return info
        await asyncio.sleep(0.1)
    raise AssertionError(f"consumer {name} has no leader after {SETTLE_SECONDS:.0f} s")


async def test_the_stream_leader_killed_mid_pipeline_loses_nothing(
    clustered: Stack, cluster: list[EmbeddedNats]
) -> None:
    client = await client_for_new_user(clustered, "cluster-kill")
    db = await create_pool(clustered.database_url)
    try:
        async with _jetstream(cluster) as jetstream:
            ids = await _upload_mixed_files(client)
            in_flight = await _wait_until_mid_pipeline(db, ids)
            leader = await _leader(jetstream, cluster)
            killed_at = time.monotonic()
            leader.process.kill()  # SIGKILL
            healed = await wait_all_ready(db, ids, jetstream, clustered.heal, SETTLE_SECONDS)
            recovered_at = time.monotonic()
            new_leader = _leader_name(await jetstream.stream_info(STREAM_NAME))
            chunks = await _assert_whole(client, db, ids)
            leader.restart()
            caught_up = await _wait_caught_up(jetstream, leader)
    finally:
        await db.close()
        await client.aclose()
    logger.warning(  # the figures of the report (see them with --log-cli-level=WARNING)
        f"nats cluster: stream leader {_name(leader)} SIGKILLed with {in_flight} of {len(ids)}"
        f" files in the pipeline; new leader {new_leader}; all {len(ids)} files ({chunks} chunks)"
        f" ready {recovered_at - killed_at:.2f} s after the kill, none retried or re-driven, no"
        f" chunk compressed twice, services restarted {healed}; the killed server caught up"
        f" {caught_up:.2f} s after its restart"
    )
    assert new_leader != _name(leader)


async def test_artisan_up_s_embedded_cluster_serves_a_replicated_stream_and_heals(
    clustered: Stack, cluster: list[EmbeddedNats], tmp_path: Path
) -> None:
    """What `artisan up --nats-cluster 3` starts: three servers on consecutive ports, one copy
    of a stream on each, and a killed one restarted by the healer on its port and store."""
    port = _consecutive_free_ports(SERVERS)
    infra = InfraSettings(
        data_dir=tmp_path,
        nats_port=port,
        nats_cluster=SERVERS,
        nats_token=cluster[0].token,
        database_url=clustered.database_url,
    )
    nats_url, _, embedded = await asyncio.to_thread(start_infra, infra)
    nodes = [part for part in embedded if isinstance(part, EmbeddedNats)]
    try:
        assert nats_url.split(",") == [f"nats://127.0.0.1:{port + n}" for n in range(SERVERS)]
        async with _jetstream(nodes) as jetstream:
            stream = await jetstream.add_stream(name="PROBE", subjects=["probe"], num_replicas=3)
            assert _servers_of(stream) == {_name(node) for node in nodes}
            healer = InfraSupervisor(nodes)
            nodes[0].process.kill()
            assert await _healed(healer) == ["nats-server"]
            await _wait_caught_up(jetstream, nodes[0], "PROBE")
    finally:
        for node in nodes:
            node.stop()


async def _healed(healer: InfraSupervisor) -> list[str]:
    """What the healer restarted, called as `artisan up` calls it, twice a second."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        if restarted := await asyncio.to_thread(healer.restart_dead):
            return restarted
        await asyncio.sleep(0.5)
    raise AssertionError("nothing was restarted")


def _consecutive_free_ports(count: int) -> int:
    """The first of `count` free ports in a row whose route ports are free too."""
    while True:
        first = free_port()
        ports = [first + n for n in range(count)]
        ports += [port + NATS_ROUTE_PORT_OFFSET for port in ports]
        if ports[-1] < 65536 and all(port_is_free("127.0.0.1", port) for port in ports):
            return first


def _free_ports(count: int) -> list[int]:
    ports: set[int] = set()
    while len(ports) < count:
        ports.add(free_port())
    return sorted(ports)


def _name(node: EmbeddedNats) -> str:
    assert node.seat is not None
    return node.seat.server_name


async def _quiet(_: Exception) -> None:
    """nats-py's default error callback logs each refused reconnect to the killed server."""


@asynccontextmanager
async def _jetstream(cluster: list[EmbeddedNats]) -> AsyncIterator[JetStreamContext]:
    """A client of the whole cluster, as the services are: it moves on when its server dies."""
    servers = [node.url for node in cluster]
    token = cluster[0].token.get_secret_value()
    client = await nats.connect(servers, token=token, error_cb=_quiet, reconnect_time_wait=0.2)
    try:
        yield client.jetstream(timeout=JETSTREAM_TIMEOUT_SECONDS)
    finally:
        await client.close()


def _leader_name(stream: StreamInfo) -> str:
    assert stream.cluster is not None and stream.cluster.leader, stream.cluster
    return stream.cluster.leader


def _servers_of(stream: StreamInfo) -> set[str]:
    assert stream.cluster is not None
    return {_leader_name(stream), *(peer.name for peer in stream.cluster.replicas or [])}


async def _leader(jetstream: JetStreamContext, cluster: list[EmbeddedNats]) -> EmbeddedNats:
    name = _leader_name(await jetstream.stream_info(STREAM_NAME))
    return next(node for node in cluster if _name(node) == name)


async def _upload_mixed_files(client: httpx.AsyncClient) -> list[str]:
    parts = [("files", (name, data)) for name, data in documents.of_every_format(FILES)]
    response = await client.post("/v1/files", files=parts)
    assert response.status_code == 202, response.text
    ids = [record["id"] for record in response.json()["items"]]
    assert len(set(ids)) == FILES
    return ids


async def _wait_until_mid_pipeline(db: asyncpg.Pool, ids: list[str]) -> int:
    """Once some files are ready and some are not: how many are still in the pipeline."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while time.monotonic() < deadline:
        statuses = list((await file_statuses(db, ids)).values())
        ready = statuses.count("ready")
        assert ready < len(ids), "every file was ready before the kill: nothing was in flight"
        if ready:
            return len(ids) - ready
        await asyncio.sleep(0.02)
    raise AssertionError(f"no file ready after {SETTLE_SECONDS:.0f} s")


async def _assert_whole(client: httpx.AsyncClient, db: asyncpg.Pool, ids: list[str]) -> int:
    """Nothing lost, nothing done twice: each file's chunks cover its text exactly, every chunk
    is embedded, no file was retried or re-driven (its work was never lost on the bus), and each
    strategic chunk was compressed once. The number of chunks."""
    for file_id in ids:
        text = (await client.get(f"/v1/files/{file_id}/content")).text
        chunks = (await client.get(f"/v1/files/{file_id}/chunks")).json()["items"]
        assert_exact_coverage(text, chunks)
    rows = await db.fetch(
        """SELECT f.filename, f.attempt, f.redrives,
                  (SELECT count(*) FROM file_chunks c WHERE c.file_id = f.id) AS chunks,
                  (SELECT count(*) FROM file_chunks c
                   WHERE c.file_id = f.id AND c.embedding IS NULL) AS unembedded,
                  (SELECT count(*) FROM file_chunks c
                   WHERE c.file_id = f.id AND c.chunk_type = 'strategic') AS strategic,
                  (SELECT count(*) FROM model_calls m
                   WHERE m.file_id = f.id AND m.role = 'compress') AS compressions
           FROM files f WHERE f.id::text = ANY($1)""",
        ids,
    )
    assert len(rows) == len(ids)
    for row in rows:
        assert (row["attempt"], row["redrives"], row["unembedded"]) == (1, 0, 0), dict(row)
        assert row["compressions"] == row["strategic"], dict(row)
    assert sum(row["strategic"] for row in rows) > 0, "the compressor had work to do"
    return sum(row["chunks"] for row in rows)


async def _wait_caught_up(
    jetstream: JetStreamContext, node: EmbeddedNats, stream_name: str = STREAM_NAME
) -> float:
    """Seconds until the restarted server's copy of the stream is current again."""
    started = time.monotonic()
    deadline = started + SETTLE_SECONDS
    while time.monotonic() < deadline:
        try:
            stream = await jetstream.stream_info(stream_name)
        except NatsTimeoutError:  # asked while the stream had no leader: nobody answers that
            continue
        peers = (
            {peer.name: peer for peer in (stream.cluster.replicas or [])} if stream.cluster else {}
        )
        peer = peers.get(_name(node))
        # while the restarted server rejoins, the stream may be between leaders: ask again
        leader = stream.cluster.leader if stream.cluster else None
        if leader == _name(node) or (leader and peer and peer.current and not peer.lag):
            return time.monotonic() - started
        await asyncio.sleep(0.1)
    raise AssertionError(f"{_name(node)} did not catch up in {SETTLE_SECONDS:.0f} s")
