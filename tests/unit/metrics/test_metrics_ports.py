"""`artisan up`'s metrics ports: one per process, counting up, skipping busy ones, kept."""

import json
import socket
from pathlib import Path

from shared.launcher.embedded import free_port
from shared.launcher.metrics_ports import MetricsPorts, write_targets


def test_each_process_gets_its_own_port_and_keeps_it() -> None:
    first = free_port()
    ports = MetricsPorts("127.0.0.1", first)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", first + 1))  # taken by someone else
        busy.listen()
        assert ports.port_for("extractor-1") == first
        assert ports.port_for("compressor-1") == first + 2
    assert ports.port_for("compressor-2") == first + 3
    assert ports.port_for("extractor-1") == first  # a restart: the same port
    assert ports.urls()["compressor-2"] == f"http://127.0.0.1:{first + 3}/metrics"


def test_the_targets_file_is_prometheus_file_sd(tmp_path: Path) -> None:
    path = tmp_path / "targets.json"
    write_targets(
        path,
        {
            "gateway": "http://127.0.0.1:8000/metrics",
            "compressor-2": "http://127.0.0.1:9466/metrics",
        },
    )
    assert json.loads(path.read_text()) == [
        {"targets": ["127.0.0.1:8000"], "labels": {"service": "gateway", "process": "gateway"}},
        {
            "targets": ["127.0.0.1:9466"],
            "labels": {"service": "compressor", "process": "compressor-2"},
        },
    ]
