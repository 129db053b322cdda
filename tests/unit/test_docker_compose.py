"""docker-compose.yml (which cannot run here: no Docker engine) names every service correctly."""

from typing import Any

import pytest
import yaml

from shared.config import REPO_ROOT
from shared.launcher.embedded import POSTGRES_MALLOC_ENV
from shared.launcher.supervisor import SERVICES

COMPOSE_FILE = REPO_ROOT / "docker-compose.yml"


@pytest.fixture(scope="module")
def services() -> dict[str, dict[str, Any]]:
    compose = yaml.safe_load(COMPOSE_FILE.read_text())  # resolves the `<<: *anchor` merges
    return compose["services"]


def environment(service: dict[str, Any]) -> dict[str, str]:
    """A service's environment, written as a mapping or as a KEY=VALUE list; a variable named
    without a value is passed through from the env files (unset without one), so not here."""
    env = service.get("environment") or {}
    if isinstance(env, list):
        return dict(item.split("=", 1) for item in env if "=" in item)
    return {key: str(value) for key, value in env.items() if value is not None}


def command(service: dict[str, Any]) -> list[str]:
    value = service.get("command") or []
    return value.split() if isinstance(value, str) else [str(part) for part in value]


def test_nats_runs_jetstream_on_a_volume(services: dict[str, dict[str, Any]]) -> None:
    nats = services["nats"]
    assert nats["image"].startswith("nats:")
    args = command(nats)
    assert "-js" in args or "--jetstream" in args
    store = args[args.index("-sd") + 1]
    assert any(volume.endswith(f":{store}") for volume in nats["volumes"])


def test_nats_takes_only_clients_with_the_token(services: dict[str, dict[str, Any]]) -> None:
    """The token is chosen by whoever runs compose (required: no default anyone could read), and
    reaches nats-server through its environment: on no command line, in no file."""
    compose = yaml.safe_load(COMPOSE_FILE.read_text())
    nats = services["nats"]
    token = environment(nats)["ARTISAN_NATS_TOKEN"]
    assert token.startswith("${ARTISAN_NATS_TOKEN:?")
    args = command(nats)
    config_path = args[args.index("-c") + 1]
    [mounted] = [c for c in nats["configs"] if c["target"] == config_path]
    config = compose["configs"][mounted["source"]]["content"]
    assert "authorization" in config and "token: $$ARTISAN_NATS_TOKEN" in config
    assert not {"--auth", "--user", "--pass"} & set(args)
    for name in [*SERVICES, "migrate"]:
        assert environment(services[name])["ARTISAN_NATS_TOKEN"] == token, name


def test_postgres_has_pgvector(services: dict[str, dict[str, Any]]) -> None:
    postgres = services["postgres"]
    assert postgres["image"].startswith("pgvector/pgvector:")
    assert "pg_isready" in str(postgres["healthcheck"]["test"])


def test_postgres_keeps_freed_memory_as_the_embedded_one_does(
    services: dict[str, dict[str, Any]],
) -> None:
    assert POSTGRES_MALLOC_ENV.items() <= environment(services["postgres"]).items()


def test_jaeger_receives_otlp_and_services_export_to_it(
    services: dict[str, dict[str, Any]],
) -> None:
    jaeger = services["jaeger"]
    assert "jaeger" in jaeger["image"]
    assert environment(jaeger).get("COLLECTOR_OTLP_ENABLED") == "true"
    assert any(str(port).endswith(":4318") for port in jaeger["ports"])
    for name in SERVICES:
        assert environment(services[name])["ARTISAN_OTLP_ENDPOINT"] == "http://jaeger:4318"


@pytest.mark.parametrize("name", list(SERVICES))
def test_every_artisan_service_runs_from_the_one_image(
    services: dict[str, dict[str, Any]], name: str
) -> None:
    service = services[name]
    assert command(service) == ["artisan", "run", name]
    assert service["image"] == services["migrate"]["image"]
    assert service["build"] == "."
    env = environment(service)
    assert env["ARTISAN_NATS_URL"] == "nats://nats:4222"
    assert env["ARTISAN_DATABASE_URL"].startswith("postgresql://")
    assert service["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert service["depends_on"]["nats"]["condition"] == "service_healthy"


def test_the_gateway_listens_beyond_its_container(services: dict[str, dict[str, Any]]) -> None:
    gateway = services["gateway"]
    assert environment(gateway)["ARTISAN_HOST"] == "0.0.0.0"
    assert "8000:8000" in gateway["ports"]


def test_compressors_run_as_several_replicas(services: dict[str, dict[str, Any]]) -> None:
    assert services["compressor"]["deploy"]["replicas"] > 1


def test_migrations_run_once_before_the_services(services: dict[str, dict[str, Any]]) -> None:
    assert command(services["migrate"]) == ["artisan", "migrate"]
    assert services["migrate"].get("restart", "no") == "no"


def test_whatever_uses_the_database_waits_for_a_healthy_postgres(
    services: dict[str, dict[str, Any]],
) -> None:
    users = [name for name, s in services.items() if "ARTISAN_DATABASE_URL" in environment(s)]
    assert set(SERVICES) | {"migrate"} <= set(users)
    for name in users:
        assert services[name]["depends_on"]["postgres"]["condition"] == "service_healthy", name


def test_every_dependency_is_a_service(services: dict[str, dict[str, Any]]) -> None:
    for name, service in services.items():
        assert set(service.get("depends_on") or {}) <= set(services), name


def test_the_image_runs_the_gateway_from_source_as_a_non_root_user() -> None:
    dockerfile = (REPO_ROOT / "Dockerfile").read_text()
    assert "FROM python:3.11-slim" in dockerfile
    assert "pip install --no-deps -e ." in dockerfile  # migrations are found beside the code
    assert "\nUSER " in dockerfile and "\nUSER root" not in dockerfile
    assert 'CMD ["artisan", "run", "gateway"]' in dockerfile


def test_every_artisan_service_can_read_the_keys_saved_in_settings(
    services: dict[str, dict[str, Any]],
) -> None:
    """One secrets key, which compose requires, for every process that may read a saved key."""
    keys = {
        name: environment(service).get("ARTISAN_SECRETS_KEY")
        for name, service in services.items()
        if "ARTISAN_DATABASE_URL" in environment(service)
    }
    assert len(set(keys.values())) == 1, keys
    assert next(iter(keys.values())).startswith("${ARTISAN_SECRETS_KEY:?")
