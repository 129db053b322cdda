"""infra/k8s: every overlay renders to objects that Kubernetes accepts (its OpenAPI schemas, from
kubernetes-validate's offline copy, strict), built from the code's own names: settings, services,
the one image; secrets only by reference; probes, limits and a locked-down container everywhere."""

import os
import subprocess
from typing import Any

import kubernetes_validate
import pytest
from pydantic import SecretStr
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings

import shared.service  # noqa: F401  (loads every settings class a service uses)
from services.gateway import health
from shared.launcher.embedded import nats_server_binary
from shared.launcher.supervisor import SERVICES
from tests.unit.infra.manifests import (
    NAMESPACE,
    OVERLAYS,
    Manifest,
    config_map_env,
    containers,
    is_artisan,
    of_kind,
    pod_specs,
    render,
    service_container,
)

K8S_VERSION = "1.32"  # the oldest Kubernetes the manifests are written for
CUSTOM_KINDS = {"ScaledObject"}  # validated against KEDA's CRD (test_k8s_autoscaling.py)
# not SecretStr in the settings, yet it carries the database password
SECRET_SETTINGS_BESIDES_SECRETSTR = {"ARTISAN_DATABASE_URL"}

Objects = tuple[Manifest, ...]


@pytest.fixture(scope="module", params=OVERLAYS)
def objects(request: pytest.FixtureRequest) -> Objects:
    return render(request.param)


def artisan_settings() -> dict[str, FieldInfo]:
    """ARTISAN_* variable → its field, over every settings class a service process loads
    (shared/config.py, and those beside the code they configure, like /metrics')."""
    classes, pending = [], [BaseSettings]
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if cls.model_config.get("env_prefix") == "ARTISAN_":
            classes.append(cls)
    return {
        f"ARTISAN_{name}".upper(): field for c in classes for name, field in c.model_fields.items()
    }


def secret_settings() -> set[str]:
    secret = {name for name, f in artisan_settings().items() if SecretStr in _types(f.annotation)}
    return secret | SECRET_SETTINGS_BESIDES_SECRETSTR


def _types(annotation: Any) -> tuple[Any, ...]:
    return getattr(annotation, "__args__", (annotation,))


def test_every_object_is_valid_kubernetes(objects: Objects) -> None:
    errors = []
    for o in objects:
        if o["kind"] in CUSTOM_KINDS:
            continue
        try:
            kubernetes_validate.validate(o, K8S_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            path = ".".join(str(p) for p in exc.path)
            errors.append(f"{o['kind']}/{o['metadata']['name']}: {path}: {exc.message}")
    assert not errors, "\n".join(errors)


def test_everything_lives_in_one_namespace(objects: Objects) -> None:
    assert of_kind(objects, "Namespace").keys() == {NAMESPACE}
    elsewhere = [
        f"{o['kind']}/{o['metadata']['name']}"
        for o in objects
        if o["kind"] != "Namespace" and o["metadata"].get("namespace") != NAMESPACE
    ]
    assert not elsewhere


def test_every_service_runs_from_the_one_image(objects: Objects) -> None:
    for name in SERVICES:
        assert service_container(objects, name)["command"] == ["artisan", "run", name]
    images = {c["image"] for _, c in containers(objects) if is_artisan(c)}
    assert len(images) == 1, images
    [image] = images
    assert image.rsplit("/", 1)[-1].startswith("artisan:"), image


def test_environment_names_are_settings(objects: Objects) -> None:
    """A misspelt variable would be ignored without a word (extra="ignore"): none is."""
    known = artisan_settings().keys()
    for where, container in containers(objects):
        if not is_artisan(container):
            continue
        names = {e["name"] for e in container.get("env", [])}
        names |= config_map_env(objects, container).keys()
        assert names and names <= known, f"{where}: {sorted(names - known)}"


def test_secrets_only_by_reference(objects: Objects) -> None:
    """No Secret is rendered (you create them: docs/kubernetes.md); a secret setting comes from a
    secretKeyRef, never a value or a ConfigMap."""
    assert not of_kind(objects, "Secret")
    secret = secret_settings()
    assert {"ARTISAN_NATS_TOKEN", "ARTISAN_SECRETS_KEY", "ARTISAN_LLM_API_KEY"} <= secret
    for where, container in containers(objects):
        for env in container.get("env", []):
            if env["name"] in secret or env["name"].startswith("POSTGRES_PASSWORD"):
                assert "secretKeyRef" in env.get("valueFrom", {}), f"{where}: {env['name']}"
        assert not secret & config_map_env(objects, container).keys(), where
    for name, config_map in of_kind(objects, "ConfigMap").items():
        assert not secret & config_map["data"].keys(), name


def test_every_artisan_service_gets_the_shared_secrets(objects: Objects) -> None:
    for _, container in containers(objects):
        if is_artisan(container) and container["command"][1] == "run":
            names = {e["name"] for e in container["env"]}
            assert {"ARTISAN_DATABASE_URL", "ARTISAN_NATS_TOKEN", "ARTISAN_SECRETS_KEY"} <= names


def test_migrations_run_before_every_service(objects: Objects) -> None:
    """`artisan migrate` is idempotent and serialised by an advisory lock: an init container of
    every service applies pending migrations once and waits while another pod does."""
    for name in SERVICES:
        spec = of_kind(objects, "Deployment")[name]["spec"]["template"]["spec"]
        [init] = spec["initContainers"]
        assert init["command"] == ["artisan", "migrate"]
        assert init["image"] == spec["containers"][0]["image"]
        assert [e["name"] for e in init["env"]] == ["ARTISAN_DATABASE_URL"]


def test_every_container_has_probes_and_resources(objects: Objects) -> None:
    for where, spec in pod_specs(objects):
        for container in spec["containers"]:
            assert {"livenessProbe", "readinessProbe"} <= container.keys(), where
            ports = {p["name"] for p in container.get("ports", [])}
            for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
                port = container.get(probe, {}).get("httpGet", {}).get("port")
                assert port is None or port in ports, f"{where} {probe}: no port {port}"
        for container in [*spec.get("initContainers", []), *spec["containers"]]:
            for bound in ("requests", "limits"):
                assert {"cpu", "memory"} <= container["resources"][bound].keys(), where


def test_the_gateway_is_ready_only_with_nats_and_postgres(objects: Objects) -> None:
    container = service_container(objects, "gateway")
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    probed = {
        container[p]["httpGet"]["path"] for p in ("startupProbe", "livenessProbe", "readinessProbe")
    }
    assert probed <= {route.path for route in health.router.routes}  # the gateway serves them
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["ARTISAN_HOST"] == "0.0.0.0"
    service = of_kind(objects, "Service")["gateway"]
    assert service["spec"]["ports"][0]["targetPort"] == "http"


def test_pipeline_services_are_probed_on_their_metrics_port(objects: Objects) -> None:
    port = artisan_settings()["ARTISAN_METRICS_PORT"].default
    for name in set(SERVICES) - {"gateway"}:
        container = service_container(objects, name)
        assert {"name": "metrics", "containerPort": port} in container["ports"], name


def test_every_pod_runs_locked_down(objects: Objects) -> None:
    for where, spec in pod_specs(objects):
        assert spec["securityContext"]["runAsNonRoot"] is True, where
        assert spec["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault", where
        for container in [*spec.get("initContainers", []), *spec["containers"]]:
            context = container["securityContext"]
            assert context["allowPrivilegeEscalation"] is False, where
            assert context["readOnlyRootFilesystem"] is True, where
            assert context["capabilities"]["drop"] == ["ALL"], where


def test_nats_is_a_three_node_jetstream_cluster_on_volumes(objects: Objects) -> None:
    nats = of_kind(objects, "StatefulSet")["nats"]
    replicas, headless = nats["spec"]["replicas"], nats["spec"]["serviceName"]
    assert replicas == 3
    config = of_kind(objects, "ConfigMap")["nats-config"]["data"]["nats.conf"]
    for i in range(replicas):
        assert f"nats://nats-{i}.{headless}:6222" in config
    assert "store_dir: /data" in config
    [container] = nats["spec"]["template"]["spec"]["containers"]
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    [claim] = nats["spec"]["volumeClaimTemplates"]
    assert mounts[claim["metadata"]["name"]] == "/data"
    assert of_kind(objects, "Service")[headless]["spec"]["publishNotReadyAddresses"] is True
    settings = of_kind(objects, "ConfigMap")["artisan-config"]["data"]
    assert int(settings["ARTISAN_STREAM_REPLICAS"]) == replicas  # a node lost loses nothing


def test_nats_server_accepts_its_config(objects: Objects, tmp_path: Any) -> None:
    """The real nats-server parses the config, with the token from the environment alone."""
    conf = tmp_path / "nats.conf"
    conf.write_text(of_kind(objects, "ConfigMap")["nats-config"]["data"]["nats.conf"])
    check = [nats_server_binary(), "--config", str(conf), "-t"]
    env = {**os.environ, "POD_NAME": "nats-0", "ARTISAN_NATS_TOKEN": "artisan_test"}
    result = subprocess.run(check, env=env, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    del env["ARTISAN_NATS_TOKEN"]  # no token, no server: it is not in the file
    result = subprocess.run(check, env=env, capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
