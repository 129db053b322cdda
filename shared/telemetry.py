"""OpenTelemetry set-up: spans sent over OTLP/HTTP if ARTISAN_OTLP_ENDPOINT is set, else off."""

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from opentelemetry import propagate, trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from shared.config import infra_settings


def setup_telemetry(service_name: str) -> TracerProvider | None:
    """Install the global tracer provider for this process; None when no endpoint is set: spans
    nobody receives are left to OpenTelemetry's no-op tracer, which costs next to nothing, where
    recorded ones cost every message and every query their CPU."""
    endpoint = infra_settings().otlp_endpoint
    if not endpoint:
        return None
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    provider = TracerProvider(resource=Resource.create({"service.name": f"artisan-{service_name}"}))
    provider.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{endpoint.rstrip('/')}/v1/traces"))
    )
    trace.set_tracer_provider(provider)
    _instrument_asyncpg()
    return provider


def _instrument_asyncpg() -> None:
    from opentelemetry.instrumentation.asyncpg import AsyncPGInstrumentor

    instrumentor = AsyncPGInstrumentor()
    if not instrumentor.is_instrumented_by_opentelemetry:
        instrumentor.instrument()


def setup_logging(service_name: str) -> None:
    logging.basicConfig(
        level=logging.INFO,
        format=f"%(asctime)s {service_name:<10} %(levelname)-5s %(name)s: %(message)s",
    )


def current_trace_context() -> dict[str, str]:
    """The current span's W3C trace context, to store with work that is published later."""
    carrier: dict[str, str] = {}
    propagate.inject(carrier)
    return carrier


@contextmanager
def continued_trace(carrier: Mapping[str, str] | None, name: str) -> Iterator[None]:
    """A span in the trace a stored context names (a new trace when there is none)."""
    context = propagate.extract(dict(carrier or {}))
    with trace.get_tracer(__name__).start_as_current_span(name, context=context):
        yield
