"""Autoscaling in infra/k8s: KEDA's ScaledObjects valid against KEDA's own CRD schema (vendored
in infra/k8s/schemas), watching the stream and the durable consumers the code declares, through
the NATS monitoring endpoint the manifests expose; the gateway on CPU."""

import ast
from typing import Any

import jsonschema
import pytest
import yaml

from shared.config import REPO_ROOT
from shared.contracts import STREAM_NAME, Consumer
from tests.unit.infra.manifests import K8S_DIR, NAMESPACE, Manifest, of_kind, render

KEDA_SCHEMA = K8S_DIR / "schemas" / "keda.sh_scaledobjects.v1alpha1.yaml"
MONITORING_PORT = 8222
Objects = tuple[Manifest, ...]


@pytest.fixture(scope="module")
def production() -> Objects:
    return render("managed-postgres")


def strict(schema: Any) -> Any:
    """The schema with unknown fields refused, as `kubectl apply` refuses them (field validation
    Strict) where a CRD schema alone would prune them silently."""
    if isinstance(schema, dict):
        schema = {key: strict(value) for key, value in schema.items()}
        if "properties" in schema and "additionalProperties" not in schema:
            schema["additionalProperties"] = False
    elif isinstance(schema, list):
        schema = [strict(item) for item in schema]
    return schema


def consumers_pulled_by(service: str) -> set[str]:
    """The durable consumers a service's code names (`Consumer.X` anywhere in its package)."""
    names = set()
    for path in (REPO_ROOT / "services" / service).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "Consumer"
            ):
                names.add(Consumer[node.attr].value)
    return names


def test_scaled_objects_are_valid_for_keda(production: Objects) -> None:
    validator = jsonschema.Draft7Validator(strict(yaml.safe_load(KEDA_SCHEMA.read_text())))
    scaled = of_kind(production, "ScaledObject")
    assert "compressor" in scaled
    errors = [
        f"{name}: {'.'.join(map(str, e.path))}: {e.message}"
        for name, o in scaled.items()
        for e in validator.iter_errors(o)
    ]
    assert not errors, "\n".join(errors)


def test_keda_scales_the_pipeline_workers_on_their_own_consumers(production: Objects) -> None:
    """Every durable consumer a worker pulls from is a trigger of its ScaledObject (KEDA follows
    the busiest), named as shared/contracts.py names it, in its stream."""
    scaled = of_kind(production, "ScaledObject")
    assert {"compressor", "embedder", "chunker", "extractor"} <= scaled.keys()
    deployments = of_kind(production, "Deployment")
    for name, o in scaled.items():
        target = o["spec"]["scaleTargetRef"]["name"]
        assert target in deployments and target == name
        triggers = o["spec"]["triggers"]
        assert {t["type"] for t in triggers} == {"nats-jetstream"}
        assert {t["metadata"]["stream"] for t in triggers} == {STREAM_NAME}
        assert {t["metadata"]["consumer"] for t in triggers} == consumers_pulled_by(target)
        assert {t["metadata"]["account"] for t in triggers} == {"$G"}  # NATS has no accounts
        assert 1 <= o["spec"]["minReplicaCount"] < o["spec"]["maxReplicaCount"]


def test_keda_reads_the_monitoring_port_of_every_nats_node(production: Objects) -> None:
    """In a cluster KEDA asks <server_name>.<endpoint> for the consumer's leader: the endpoint is
    the headless Service (one name per pod) and each server is named after its pod."""
    nats = of_kind(production, "StatefulSet")["nats"]
    headless = nats["spec"]["serviceName"]
    endpoint = f"{headless}.{NAMESPACE}.svc.cluster.local:{MONITORING_PORT}"
    for o in of_kind(production, "ScaledObject").values():
        for trigger in o["spec"]["triggers"]:
            assert trigger["metadata"]["natsServerMonitoringEndpoint"] == endpoint
    ports = {p["port"] for p in of_kind(production, "Service")[headless]["spec"]["ports"]}
    assert MONITORING_PORT in ports
    config = of_kind(production, "ConfigMap")["nats-config"]["data"]["nats.conf"]
    assert f"http: 0.0.0.0:{MONITORING_PORT}" in config
    assert "server_name: $POD_NAME" in config
    [container] = nats["spec"]["template"]["spec"]["containers"]
    assert {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}} in (
        container["env"]
    )


def test_the_gateway_scales_on_cpu(production: Objects) -> None:
    hpa = of_kind(production, "HorizontalPodAutoscaler")["gateway"]["spec"]
    assert hpa["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "gateway",
    }
    [metric] = hpa["metrics"]
    assert metric["resource"]["name"] == "cpu"
    assert 2 <= hpa["minReplicas"] < hpa["maxReplicas"]


def test_autoscaled_deployments_leave_the_count_to_the_autoscaler(production: Objects) -> None:
    """A `replicas` in the manifest would reset the count on every `kubectl apply`."""
    hpas = of_kind(production, "HorizontalPodAutoscaler").values()
    scaled = {h["spec"]["scaleTargetRef"]["name"] for h in hpas}
    scaled |= of_kind(production, "ScaledObject").keys()
    for name in scaled:
        assert "replicas" not in of_kind(production, "Deployment")[name]["spec"], name
