"""FastStream's Prometheus middleware with Artisan's subjects as labels: every handler's messages,
durations and exceptions, and every publish, per subject."""

from collections.abc import Sequence
from typing import Any

from faststream.message import StreamMessage
from faststream.nats.prometheus.provider import settings_provider_factory
from faststream.prometheus import ConsumeAttrs, MetricsSettingsProvider, PrometheusMiddleware
from faststream.response import PublishCommand
from nats.aio.msg import Msg
from prometheus_client import REGISTRY, CollectorRegistry, Histogram

from shared.contracts import (
    CHAT_STOP_PREFIX,
    CHAT_STREAM_PREFIX,
    PROGRESS_PREFIX,
    Request,
    Subject,
)

METRICS_PREFIX = "artisan"
# a stage can wait minutes on a remote model; prometheus_client's default buckets end at 10 s
DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300)
_FIXED_SUBJECTS = frozenset({*Subject, *Request})
# subjects that end in a user's, a file's or a request's id: labelled by their prefix alone
_PER_ID_PREFIXES = (PROGRESS_PREFIX, CHAT_STREAM_PREFIX, CHAT_STOP_PREFIX)


def subject_label(subject: str) -> str:
    """A subject as a label: the fixed ones as they are, any other by its prefix and `*`."""
    if subject in _FIXED_SUBJECTS:
        return subject
    for prefix in _PER_ID_PREFIXES:
        if subject.startswith(f"{prefix}."):
            return f"{prefix}.*"
    return f"{subject.split('.', 1)[0]}.*"


class _LabelledBySubject:
    """FastStream's NATS settings provider, with subjects turned into labels."""

    def __init__(self, inner: MetricsSettingsProvider[Any, Any]) -> None:
        self._inner = inner
        self.messaging_system = inner.messaging_system

    def get_consume_attrs_from_message(self, msg: StreamMessage[Any]) -> ConsumeAttrs:
        attrs = self._inner.get_consume_attrs_from_message(msg)
        return {**attrs, "destination_name": subject_label(attrs["destination_name"])}

    def get_publish_destination_name_from_cmd(self, cmd: PublishCommand) -> str:
        return subject_label(self._inner.get_publish_destination_name_from_cmd(cmd))


def _provider(msg: Msg | Sequence[Msg] | None) -> _LabelledBySubject | None:
    inner = settings_provider_factory(msg)  # None for key-value and object-store watches
    return _LabelledBySubject(inner) if inner is not None else None


def prometheus_middleware(registry: CollectorRegistry = REGISTRY) -> PrometheusMiddleware:
    """The middleware create_broker adds: artisan_received_messages_total,
    artisan_received_processed_messages_duration_seconds (stage latency), …_exceptions_total,
    artisan_published_messages_total and their kin, labelled by subject."""
    _register_duration_histogram(registry)
    return PrometheusMiddleware(
        settings_provider_factory=_provider, registry=registry, metrics_prefix=METRICS_PREFIX
    )


def _register_duration_histogram(registry: CollectorRegistry) -> None:
    """FastStream reuses a histogram already registered under its name: registering it first
    gives stage durations buckets past 10 s."""
    name = f"{METRICS_PREFIX}_received_processed_messages_duration_seconds"
    if name in registry._names_to_collectors:  # a second broker in this process
        return
    Histogram(
        name,
        "Handler duration in seconds by subject (one pipeline stage's latency)",
        labelnames=["app_name", "broker", "handler"],
        buckets=DURATION_BUCKETS,
        registry=registry,
    )
