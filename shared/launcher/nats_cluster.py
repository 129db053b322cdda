"""A local JetStream cluster: several embedded nats-servers linked by routes (`artisan up
--nats-cluster N`, and the tests' cluster)."""

import asyncio
from collections.abc import Sequence
from pathlib import Path

import nats
from nats.errors import Error as NatsError
from pydantic import SecretStr

from shared.launcher.embedded import (
    NATS_CLUSTER_NAME,
    ClusterSeat,
    EmbeddedNats,
    check_embedded_token,
)

JETSTREAM_READY_SECONDS = 30.0  # a new cluster elects its metadata leader in well under 1 s
_PLACEMENT_PROBE = "ARTISAN_PLACEMENT_PROBE"


def start_nats_cluster(
    data_dir: Path,
    ports: Sequence[int],
    route_ports: Sequence[int],
    log_dir: Path | None = None,
    *,
    token: SecretStr,
) -> list[EmbeddedNats]:
    """A JetStream cluster of len(ports) servers on 127.0.0.1, each storing under
    data_dir/nats-N, linked by routes on `route_ports`; returns once a stream can be placed on
    all of them, so streams may be declared at once."""
    check_embedded_token(token)
    nodes = [
        EmbeddedNats(
            store_dir=data_dir / f"nats-{n}",
            port=port,
            token=token,
            log_file=log_dir / f"nats-{n}.log" if log_dir else None,
            seat=ClusterSeat(f"{NATS_CLUSTER_NAME}-{n}", route_port, tuple(route_ports)),
        )
        for n, (port, route_port) in enumerate(zip(ports, route_ports, strict=True), 1)
    ]
    started: list[EmbeddedNats] = []
    try:
        for node in nodes:
            node.start()
            started.append(node)
        ready = wait_for_jetstream([node.url for node in nodes], token)
        asyncio.run(asyncio.wait_for(ready, JETSTREAM_READY_SECONDS))
    except BaseException:
        for node in started:
            node.stop()
        raise
    return nodes


async def wait_for_jetstream(servers: list[str], token: SecretStr) -> None:
    """Until a stream can be placed on every server: a new cluster has no metadata leader for
    its first moments (requests to declare a stream go unanswered), and its leader may not yet
    count every server as a peer (a stream replicated on all of them is refused: "no suitable
    peers for placement"). A probe stream on all of them, deleted again, proves both."""
    client = await nats.connect(servers, token=token.get_secret_value(), connect_timeout=2)
    try:
        jetstream = client.jetstream(timeout=0.5)
        while True:
            try:
                await jetstream.add_stream(
                    name=_PLACEMENT_PROBE, subjects=[], num_replicas=len(servers)
                )
                await jetstream.delete_stream(_PLACEMENT_PROBE)
                return
            except NatsError:
                await asyncio.sleep(0.1)
    finally:
        await client.close()
