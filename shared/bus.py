"""The NATS broker every service uses: one stream, durable work-queue consumers, telemetry and
metrics on."""

from typing import Any

from faststream import AckPolicy
from faststream._internal.context import Context
from faststream.nats import JStream, NatsBroker, NatsToken, PullSub
from faststream.nats.opentelemetry import NatsTelemetryMiddleware
from nats.js.api import ConsumerConfig, DeliverPolicy, StreamConfig
from nats.js.errors import BadRequestError
from pydantic import SecretStr

from shared.config import InfraSettings, nats_servers, pipeline_settings
from shared.contracts import (
    STREAM_NAME,
    STREAM_SUBJECTS,
    ChunkEvent,
    Consumer,
    FileEvent,
    ProgressEvent,
    Subject,
    progress_subject,
)
from shared.metrics.bus import prometheus_middleware
from shared.models.live import ModelsVersionMiddleware
from shared.usage import record_held_calls

STREAM_MAX_AGE_SECONDS = 7 * 24 * 3600
# ARTISAN_STREAM_REPLICAS, read once per process (a deployment starts all of them with the same);
# the consumers leave num_replicas at 0, so they follow the stream's
STREAM_REPLICAS = InfraSettings().stream_replicas
STREAM = JStream(
    STREAM_NAME,
    subjects=STREAM_SUBJECTS,
    max_age=STREAM_MAX_AGE_SECONDS,
    num_replicas=STREAM_REPLICAS,
    declare=True,
)


class _ContextOnLoop(Context):
    """FastStream's Context, with the lookup made a coroutine: fast_depends runs a synchronous
    `use` in a worker thread, a thread hop for each such parameter of every message, which
    cost more CPU than a small file's work (three per pipeline step: ~9% of the extractor's
    CPU, profiled). FastStream's public `Context` is a function, so this extends its class."""

    async def use(self, /, **kwargs: Any) -> dict[str, Any]:
        return super().use(**kwargs)


def LoopContext(name: str) -> Any:
    """A handler's parameter from the service's context ('pool', 'broker', 'message'),
    looked up on the event loop."""
    return _ContextOnLoop(name)


RECONNECT_WAIT_SECONDS = 1  # between connection attempts, for as long as NATS is away


def create_broker(nats_url: str, *, token: SecretStr | None = None, **kwargs: Any) -> NatsBroker:
    """A broker that waits for NATS at start and reconnects forever: a NATS restarted by `artisan
    up` (or Docker) finds every client again; with a cluster's URLs (comma-separated), it moves
    to another server when its own dies. `token` defaults to ARTISAN_NATS_TOKEN, read at
    this call (the process that starts an embedded NATS puts its token there); a wrong token
    fails the connection at once instead of retrying."""
    token = token or InfraSettings().nats_token
    return NatsBroker(
        nats_servers(nats_url),
        middlewares=[NatsTelemetryMiddleware(), prometheus_middleware(), ModelsVersionMiddleware],
        security=NatsToken(token.get_secret_value) if token else None,
        max_reconnect_attempts=-1,
        reconnect_time_wait=RECONNECT_WAIT_SECONDS,
        **kwargs,
    )


async def ensure_stream(broker: NatsBroker) -> None:
    """Declare the stream (idempotent) for a process that only publishes, like the gateway."""
    config = StreamConfig(
        name=STREAM_NAME,
        subjects=STREAM_SUBJECTS,
        max_age=STREAM_MAX_AGE_SECONDS,
        num_replicas=STREAM_REPLICAS,
    )
    jetstream = broker.connection.jetstream()
    try:
        await jetstream.add_stream(config)
    except BadRequestError:  # exists with other settings: bring it to ours
        await jetstream.update_stream(config)


def work_queue(consumer: Consumer) -> dict[str, Any]:
    """Subscriber options for one slot of a durable pull consumer shared by all replicas of a
    service. A slot fetches one message when it is free: a message fetched ahead would wait for
    a slot without the in-progress heartbeat (`run_step` starts it) and, past the ack deadline,
    be delivered again while it waits. Several messages at once are several slots."""
    settings = pipeline_settings()
    return {
        "stream": STREAM,
        "durable": consumer.value,
        "pull_sub": PullSub(batch_size=1, timeout=5.0),
        "config": ConsumerConfig(
            durable_name=consumer.value,
            deliver_policy=DeliverPolicy.ALL,
            ack_wait=settings.ack_wait_seconds,
            # one more than the handler's own limit: the last delivery marks the file failed
            max_deliver=settings.max_deliveries + 1,
        ),
        "ack_policy": AckPolicy.NACK_ON_ERROR,
    }


async def publish_event(
    broker: NatsBroker, subject: Subject, event: FileEvent | ChunkEvent
) -> None:
    """Publish to the stream with a de-duplication id, so a re-run of a step publishes once.
    The step's model calls are recorded first: the next step never runs before them."""
    await record_held_calls()
    await broker.publish(
        event,
        subject.value,
        stream=STREAM_NAME,
        headers={"Nats-Msg-Id": event.message_id(subject)},
    )


async def publish_progress(broker: NatsBroker, user_id: Any, event: ProgressEvent) -> None:
    await broker.publish(event, progress_subject(user_id, event.file_id))
