"""Spans are recorded only when somebody receives them (ARTISAN_OTLP_ENDPOINT)."""

import os
import subprocess
import sys

PROBE = """
from opentelemetry import trace
from shared.telemetry import setup_telemetry
provider = setup_telemetry("probe")
with trace.get_tracer("probe").start_as_current_span("step") as span:
    print(provider is not None, span.is_recording())
"""


def _probe(endpoint: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "ARTISAN_OTLP_ENDPOINT"}
    if endpoint:
        env["ARTISAN_OTLP_ENDPOINT"] = endpoint
    # a process of its own: the global tracer provider can be set once per process
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_without_an_endpoint_spans_are_not_recorded() -> None:
    assert _probe(None) == "False False"


def test_with_an_endpoint_spans_are_recorded_for_export() -> None:
    assert _probe("http://127.0.0.1:9") == "True True"
