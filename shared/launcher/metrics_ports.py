"""Each service process's /metrics port when several run on one machine (`artisan up`)."""

import json
from dataclasses import dataclass, field
from pathlib import Path

from shared.launcher.embedded import port_is_free

TARGETS_FILE = "metrics-targets.json"


@dataclass
class MetricsPorts:
    """Ports counting up from `first`, skipping ones in use; a restarted process keeps its own,
    so a scraper's list of targets stays true for the whole run."""

    host: str
    first: int
    assigned: dict[str, int] = field(default_factory=dict)  # process label → port

    def port_for(self, label: str) -> int:
        if label not in self.assigned:
            port = max(self.assigned.values(), default=self.first - 1) + 1
            while not port_is_free(self.host, port):
                port += 1
            self.assigned[label] = port
        return self.assigned[label]

    def urls(self) -> dict[str, str]:
        """Each process's /metrics, by process label."""
        return {
            label: f"http://{self.host}:{port}/metrics" for label, port in self.assigned.items()
        }


def write_targets(path: Path, urls: dict[str, str]) -> None:
    """The endpoints as a Prometheus file_sd list (`file_sd_configs: [{files: [PATH]}]`), each
    labelled with its service and process."""
    targets = [
        {
            "targets": [url.removeprefix("http://").removesuffix("/metrics")],
            "labels": {"service": label.rsplit("-", 1)[0], "process": label},
        }
        for label, url in urls.items()
    ]
    path.write_text(json.dumps(targets, indent=2) + "\n")
