"""docker-compose.yml declares the metrics port of every pipeline service (the gateway serves its
metrics on its HTTP port)."""

import yaml

from shared.config import REPO_ROOT
from shared.launcher.supervisor import SERVICES
from shared.metrics.settings import DEFAULT_METRICS_PORT


def test_every_pipeline_service_exposes_its_metrics_port() -> None:
    services = yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())["services"]
    for name in SERVICES:
        exposed = {str(port) for port in services[name].get("expose", [])}
        if name == "gateway":
            assert str(DEFAULT_METRICS_PORT) not in exposed
        else:
            assert str(DEFAULT_METRICS_PORT) in exposed, name
