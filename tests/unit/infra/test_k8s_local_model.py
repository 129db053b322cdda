"""infra/k8s/components/local-model, through overlays/dev-local-model (the generic checks of
test_k8s_manifests.py run on that overlay too): llama.cpp's server on a GGUF file from its volume,
serving /metrics, and every Artisan service pointed at it through artisan-config; the other
overlays have no model. Its init container's script, run here, fetches the file once."""

import os
import subprocess
from pathlib import Path

import pytest

from tests.unit.infra.manifests import Manifest, of_kind, render, service_container

OVERLAY = "dev-local-model"
NAME = "llama-server"
Objects = tuple[Manifest, ...]


@pytest.fixture(scope="module")
def objects() -> Objects:
    return render(OVERLAY)


def option(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


def env_sources(container: Manifest) -> dict[str, Manifest]:
    return {e["name"]: e.get("valueFrom", {"value": e.get("value")}) for e in container["env"]}


def model_server(objects: Objects) -> Manifest:
    return of_kind(objects, "Deployment")[NAME]["spec"]["template"]["spec"]


def test_the_server_reads_the_model_from_its_volume_and_serves_metrics(objects: Objects) -> None:
    spec = model_server(objects)
    [server] = spec["containers"]
    assert server["image"].startswith("ghcr.io/ggml-org/llama.cpp:server")
    args = server["args"]
    assert "--metrics" in args
    mounts = {m["name"]: m["mountPath"] for m in server["volumeMounts"]}
    volumes = {v["name"]: v for v in spec["volumes"]}
    claim = volumes["models"]["persistentVolumeClaim"]["claimName"]
    assert claim in of_kind(objects, "PersistentVolumeClaim")
    assert option(args, "--model") == f"{mounts['models']}/$(MODEL_FILE)"  # from its env
    assert env_sources(server)["MODEL_FILE"]["configMapKeyRef"]["name"] == NAME
    [init] = spec["initContainers"]
    assert {m["name"] for m in init["volumeMounts"]} >= {"models"}
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert server[probe]["httpGet"]["path"] == "/health"


def test_its_threads_follow_its_cpu_limit(objects: Objects) -> None:
    [server] = model_server(objects)["containers"]
    threads = env_sources(server)["LLAMA_ARG_THREADS"]["resourceFieldRef"]
    assert threads == {"containerName": server["name"], "resource": "limits.cpu"}


def test_every_service_is_pointed_at_it(objects: Objects) -> None:
    [server] = model_server(objects)["containers"]
    args = server["args"]
    [port] = [p for p in server["ports"] if p["containerPort"] == int(option(args, "--port"))]
    [service_port] = of_kind(objects, "Service")[NAME]["spec"]["ports"]
    assert service_port["targetPort"] == port["name"]
    address = f"http://{NAME}:{service_port['port']}"
    settings = of_kind(objects, "ConfigMap")["artisan-config"]["data"]
    assert settings["ARTISAN_LLM_BASE_URL"] == f"{address}/v1"
    assert settings["ARTISAN_MODEL_METRICS_URL"] == f"{address}/metrics"
    # Settings offers the same server, under the name the services call it by
    assert settings["ARTISAN_MODEL_BASE_URL"] == settings["ARTISAN_LLM_BASE_URL"]
    assert settings["ARTISAN_MODEL_ALIAS"] == settings["ARTISAN_LLM_MODEL"]
    alias = env_sources(server)[option(args, "--alias").strip("$()")]["configMapKeyRef"]
    assert alias == {"name": "artisan-config", "key": "ARTISAN_LLM_MODEL"}  # one name for both
    assert settings["ARTISAN_LLM_ROLES"] == "answers"
    parallel = int(option(args, "--parallel"))
    assert int(settings["ARTISAN_LLM_CONCURRENCY"]) == parallel
    # llama.cpp shares --ctx-size among its parallel requests
    assert int(settings["ARTISAN_CONTEXT_WINDOW_TOKENS"]) * parallel == int(
        option(args, "--ctx-size")
    )
    # the gateway's readiness does not wait on the model (artisan-config.yaml says why)
    assert "ARTISAN_MODEL_HEALTH_URL" not in settings
    gateway = service_container(objects, "gateway")
    assert {"configMapRef": {"name": "artisan-config"}} in gateway["envFrom"]


@pytest.mark.parametrize("overlay", ["managed-postgres", "dev"])
def test_the_other_overlays_have_no_model(overlay: str) -> None:
    objects = render(overlay)
    assert NAME not in of_kind(objects, "Deployment")
    settings = of_kind(objects, "ConfigMap")["artisan-config"]["data"]
    assert not {"ARTISAN_LLM_BASE_URL", "ARTISAN_MODEL_METRICS_URL"} & settings.keys()


def fetch_model(objects: Objects, models: Path, url: str) -> subprocess.CompletedProcess[str]:
    """The init container's script, run by sh here with the models folder at `models`."""
    script = of_kind(objects, "ConfigMap")[NAME]["data"]["fetch-model.sh"]
    env = {**os.environ, "MODELS_DIR": str(models), "MODEL_FILE": "m.gguf", "MODEL_URL": url}
    return subprocess.run(
        ["sh", "-c", script], env=env, capture_output=True, text=True, timeout=20, check=False
    )


def test_the_model_is_fetched_once(objects: Objects, tmp_path: Path) -> None:
    source = tmp_path / "source.gguf"
    source.write_bytes(b"GGUF" + bytes(64))
    models = tmp_path / "models"
    models.mkdir()
    assert fetch_model(objects, models, source.as_uri()).returncode == 0
    assert (models / "m.gguf").read_bytes() == source.read_bytes()
    assert not list(models.glob("*.part"))
    source.unlink()  # there already: not fetched again
    assert fetch_model(objects, models, source.as_uri()).returncode == 0


def test_a_failed_download_leaves_no_model(objects: Objects, tmp_path: Path) -> None:
    result = fetch_model(objects, tmp_path, (tmp_path / "missing.gguf").as_uri())
    assert result.returncode != 0
    assert not (tmp_path / "m.gguf").exists()
