"""Several NATS servers: ARTISAN_NATS_URL lists them, each embedded server of a local cluster has
its own name and routes to the others, and the stream has a copy on each unless told otherwise."""

import pytest

from shared.cli.main import build_parser
from shared.config import InfraSettings, nats_servers
from shared.launcher.embedded import ClusterSeat
from shared.launcher.stack import stream_replicas


def test_a_nats_url_names_one_server_or_a_cluster_s_separated_by_commas() -> None:
    assert nats_servers("nats://127.0.0.1:4222") == ["nats://127.0.0.1:4222"]
    assert nats_servers(" nats://a:4222, nats://b:4222 ,nats://c:4222,") == [
        "nats://a:4222",
        "nats://b:4222",
        "nats://c:4222",
    ]


def test_a_cluster_server_is_named_and_routes_to_the_others() -> None:
    args = ClusterSeat("artisan-2", 6223, (6222, 6223, 6224)).args()
    assert args[args.index("-n") + 1] == "artisan-2"
    assert args[args.index("--cluster_name") + 1] == "artisan"
    assert args[args.index("--cluster") + 1] == "nats://127.0.0.1:6223"
    assert args[args.index("--routes") + 1] == "nats://127.0.0.1:6222,nats://127.0.0.1:6224"


@pytest.mark.parametrize(
    ("settings", "replicas"),
    [
        ({}, 1),
        ({"nats_cluster": 3}, 3),  # an embedded cluster: a copy on each server
        ({"nats_cluster": 3, "stream_replicas": 1}, 1),  # as the operator says
        ({"nats_url": "nats://a:4222,nats://b:4222,nats://c:4222"}, 1),  # theirs to choose
        ({"nats_url": "nats://a:4222,nats://b:4222,nats://c:4222", "stream_replicas": 3}, 3),
    ],
)
def test_the_stream_has_a_copy_on_each_embedded_server_unless_set(
    settings: dict[str, object], replicas: int
) -> None:
    assert stream_replicas(InfraSettings(**settings)) == replicas


def test_up_takes_the_size_of_its_nats_cluster() -> None:
    assert build_parser().parse_args(["up", "--nats-cluster", "3"]).nats_cluster == 3
    assert build_parser().parse_args(["up"]).nats_cluster is None
    with pytest.raises(SystemExit):
        build_parser().parse_args(["up", "--nats-cluster", "0"])
