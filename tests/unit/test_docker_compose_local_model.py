"""docker-compose.yml's local model (no Docker engine here: what Compose would resolve is resolved
as it does): llama.cpp's server under the `local-model` profile alone, and the services' model
settings unset unless an env file gives them — docker-compose.local-model.env, which points them
at that server, its port, its /health and its /metrics, and offers it in Settings as the local
model on this machine, with values the services accept."""

import re
from typing import Any

import pytest
import yaml
from dotenv import dotenv_values

from shared.config import REPO_ROOT, ModelSettings
from shared.launcher.supervisor import SERVICES
from shared.models.server_settings import ModelServerSettings
from tests.unit.test_docker_compose import COMPOSE_FILE, command

ENV_FILE = REPO_ROOT / "docker-compose.local-model.env"
PROFILE = "local-model"
MODEL_SERVER = "llama-server"
ALWAYS_STARTED = {"nats", "postgres", "jaeger", "migrate", *SERVICES}
_VARIABLE = re.compile(r"\$\{(\w+)(?::-([^}]*))?\}")  # ${NAME} or ${NAME:-default}


@pytest.fixture(scope="module")
def services() -> dict[str, dict[str, Any]]:
    return yaml.safe_load(COMPOSE_FILE.read_text())["services"]


@pytest.fixture(scope="module")
def env_file() -> dict[str, str]:
    return {key: value or "" for key, value in dotenv_values(ENV_FILE).items()}


def interpolate(text: str, env: dict[str, str]) -> str:
    """Compose's `${NAME}` / `${NAME:-default}` with these variables."""
    return _VARIABLE.sub(lambda m: env.get(m[1]) or (m[2] or ""), text)


def option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


def passed_through(service: dict[str, Any]) -> set[str]:
    """Variables named without a value: Compose takes them from the env files, else leaves them
    unset in the container."""
    env = service.get("environment") or {}
    return {key for key, value in env.items() if value is None}


def test_the_model_server_runs_only_with_its_profile(services: dict[str, dict[str, Any]]) -> None:
    server = services[MODEL_SERVER]
    assert server["profiles"] == [PROFILE]
    assert server["image"] == "ghcr.io/ggml-org/llama.cpp:server"
    unprofiled = {name for name, service in services.items() if not service.get("profiles")}
    assert unprofiled == ALWAYS_STARTED  # a plain `docker compose up` starts what it did
    for name, service in services.items():
        assert MODEL_SERVER not in (service.get("depends_on") or {}), name


def test_the_model_server_serves_metrics_and_health(services: dict[str, dict[str, Any]]) -> None:
    server = services[MODEL_SERVER]
    args = command(server)
    assert "--metrics" in args
    assert option(args, "--host") == "0.0.0.0"
    assert str(option(args, "--port")) in {str(port) for port in server["expose"]}
    assert "ports" not in server  # its API takes no key: inside the compose network only
    health = " ".join(server["healthcheck"]["test"])
    assert f"http://localhost:{option(args, '--port')}/health" in health


def test_without_an_env_file_no_service_is_given_a_model(
    services: dict[str, dict[str, Any]], env_file: dict[str, str]
) -> None:
    """The model settings are passed through, never set: unset, the services run offline or
    with the models saved in Settings, as before."""
    artisan = {key for key in env_file if key.startswith("ARTISAN_")}
    assert artisan
    for name in SERVICES:
        assert artisan | {"ARTISAN_LLM_API_KEY"} <= passed_through(services[name]), name


def test_the_env_file_points_every_service_at_the_model_server(
    services: dict[str, dict[str, Any]], env_file: dict[str, str]
) -> None:
    args = [interpolate(arg, env_file) for arg in command(services[MODEL_SERVER])]
    server = f"http://{MODEL_SERVER}:{option(args, '--port')}"
    assert env_file["ARTISAN_LLM_BASE_URL"] == f"{server}/v1"
    assert env_file["ARTISAN_MODEL_HEALTH_URL"] == f"{server}/health"
    assert env_file["ARTISAN_MODEL_METRICS_URL"] == f"{server}/metrics"
    assert env_file["ARTISAN_LLM_MODEL"] == option(args, "--alias")
    # what Settings offers as the local model on this machine, as `artisan up --model` sets it
    assert env_file["ARTISAN_MODEL_BASE_URL"] == f"{server}/v1"
    assert env_file["ARTISAN_MODEL_ALIAS"] == option(args, "--alias")
    parallel = int(option(args, "--parallel"))
    assert int(env_file["ARTISAN_LLM_CONCURRENCY"]) == parallel
    # llama.cpp shares --ctx-size among its parallel requests
    assert int(env_file["ARTISAN_CONTEXT_WINDOW_TOKENS"]) * parallel == int(
        option(args, "--ctx-size")
    )


def test_the_model_file_is_mounted_where_the_server_reads_it(
    services: dict[str, dict[str, Any]], env_file: dict[str, str]
) -> None:
    server = services[MODEL_SERVER]
    model = interpolate(option(command(server), "--model"), env_file)
    [volume] = [interpolate(v, env_file) for v in server["volumes"]]
    source, target, mode = volume.split(":")
    assert source == env_file["LOCAL_MODEL_DIR"] and mode == "ro"
    assert model == f"{target}/{env_file['LOCAL_MODEL_FILE']}"
    assert model.endswith(".gguf")


def test_the_services_accept_the_env_files_values(
    env_file: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in env_file.items():
        monkeypatch.setenv(key, value)
    models, server = ModelSettings(), ModelServerSettings()
    assert models.remote_llm and not models.remote_ingestion  # answers by the model
    assert server.model_metrics_url and server.model_health_url
    # Settings' one click gives the services the model they are already pointed at
    assert (server.model_base_url, server.model_alias) == (models.llm_base_url, models.llm_model)


def test_a_models_folder_stays_out_of_the_image() -> None:
    """A GGUF file of gigabytes in ./models would otherwise go into every `--build` context."""
    ignored = (REPO_ROOT / ".dockerignore").read_text().split()
    assert "models" in ignored or "models/" in ignored
