"""docker-compose.nats-cluster.yml, layered over docker-compose.yml (no Docker engine here: the
layering is done as Compose does it), makes three JetStream servers that route to one another,
and attaches every Artisan service to all three with the stream replicated on each."""

from typing import Any

import pytest
import yaml

from shared.config import REPO_ROOT, nats_servers
from shared.launcher.supervisor import SERVICES
from tests.unit.test_docker_compose import command, environment

BASE = REPO_ROOT / "docker-compose.yml"
CLUSTER = REPO_ROOT / "docker-compose.nats-cluster.yml"
NATS_SERVERS = ["nats", "nats-2", "nats-3"]


@pytest.fixture(scope="module")
def services() -> dict[str, dict[str, Any]]:
    """The services of both files as Compose merges them: a later file's `environment` merges
    into the earlier one's, any other key it sets replaces the earlier value."""
    merged = yaml.safe_load(BASE.read_text())["services"]
    for name, overlay in yaml.safe_load(CLUSTER.read_text())["services"].items():
        service = dict(merged.get(name, {}))
        for key, value in overlay.items():
            if key == "environment":
                value = {**environment(service), **environment(overlay)}
            service[key] = value
        merged[name] = service
    return merged


def option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


def test_three_jetstream_servers_each_named_on_its_own_volume(
    services: dict[str, dict[str, Any]],
) -> None:
    names, volumes = set(), set()
    for server in NATS_SERVERS:
        args = command(services[server])
        assert "-js" in args and option(args, "--cluster_name") == "artisan"
        names.add(option(args, "-n"))
        store = option(args, "-sd")
        [volume] = [v for v in services[server]["volumes"] if v.endswith(f":{store}")]
        volumes.add(volume)
    assert len(names) == len(volumes) == len(NATS_SERVERS)


@pytest.mark.parametrize("server", NATS_SERVERS)
def test_each_server_routes_to_the_other_two_and_takes_only_the_token(
    services: dict[str, dict[str, Any]], server: str
) -> None:
    args = command(services[server])
    port = option(args, "--cluster").rsplit(":", 1)[1]
    routes = set(option(args, "--routes").split(","))
    assert routes == {f"nats://{other}:{port}" for other in NATS_SERVERS if other != server}
    assert option(args, "-c") == "/etc/nats/auth.conf"
    assert environment(services[server])["ARTISAN_NATS_TOKEN"].startswith("${ARTISAN_NATS_TOKEN:?")


@pytest.mark.parametrize("name", [*SERVICES, "migrate"])
def test_every_artisan_service_uses_all_three_with_the_stream_on_each(
    services: dict[str, dict[str, Any]], name: str
) -> None:
    env = environment(services[name])
    servers = nats_servers(env["ARTISAN_NATS_URL"])
    assert servers == [f"nats://{server}:4222" for server in NATS_SERVERS]
    assert env["ARTISAN_STREAM_REPLICAS"] == str(len(NATS_SERVERS))
    # the rest of its environment is docker-compose.yml's
    assert env["ARTISAN_DATABASE_URL"].startswith("postgresql://")
    assert env["ARTISAN_NATS_TOKEN"].startswith("${ARTISAN_NATS_TOKEN:?")
