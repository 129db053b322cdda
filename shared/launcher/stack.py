"""One Artisan instance on this machine: infrastructure (embedded or external) + the services."""

import asyncio
import logging
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field

import httpx
from pydantic import SecretStr

from shared.config import GatewaySettings, InfraSettings
from shared.db.migrations import apply_migrations
from shared.launcher.embedded import (
    NATS_TOKEN_ENV,
    EmbeddedNats,
    EmbeddedPostgres,
    NatsTokenError,
    new_nats_token,
    port_is_free,
    postgres_running,
    require_free_port,
    running_nats_token,
    start_nats,
    start_postgres,
)
from shared.launcher.embedded_model import EmbeddedModel, services_env, start_model
from shared.launcher.healing import InfraSupervisor
from shared.launcher.metrics_ports import TARGETS_FILE, MetricsPorts, write_targets
from shared.launcher.nats_cluster import start_nats_cluster
from shared.launcher.supervisor import SERVICES, Supervisor
from shared.metrics.settings import MetricsSettings, metrics_settings
from shared.models.server_settings import ModelServerSettings, model_server_settings
from shared.secret_box import SECRETS_KEY_ENV, ensure_secrets_key

logger = logging.getLogger(__name__)


class ServiceStartError(RuntimeError):
    """A service exited while the system was starting; the message holds its last log lines."""


NATS_ROUTE_PORT_OFFSET = 2000  # an embedded cluster's routes: 6222… beside clients on 4222…
MAX_STREAM_REPLICAS = 5  # JetStream's limit


@dataclass
class Stack:
    nats_url: str
    database_url: str
    gateway_url: str
    supervisor: Supervisor
    embedded: list[EmbeddedNats | EmbeddedPostgres | EmbeddedModel] = field(default_factory=list)
    infra: InfraSupervisor = field(init=False)

    def __post_init__(self) -> None:
        self.infra = InfraSupervisor(self.embedded)

    def metrics_urls(self) -> dict[str, str]:
        """Every process's /metrics, by process label (the gateway's on its HTTP port). An
        embedded model's is not one: the gateway's shows its figures, and a second reader would
        reset the per-read averages llama.cpp keeps (shared/metrics/model_server.py)."""
        ports = self.supervisor.metrics_ports
        return {"gateway": f"{self.gateway_url}/metrics", **(ports.urls() if ports else {})}

    def heal(self) -> list[str]:
        """Restart whatever died, the embedded NATS and Postgres before the services; the names
        of what was restarted (`artisan up` calls this twice a second)."""
        return self.infra.restart_dead() + self.supervisor.restart_dead()

    def stop(self) -> None:
        self.supervisor.stop()
        for part in reversed(self.embedded):
            part.stop()


def start_infra(
    infra: InfraSettings, *, attach: bool = False
) -> tuple[str, str, list[EmbeddedNats | EmbeddedPostgres]]:
    """Use ARTISAN_NATS_URL / ARTISAN_DATABASE_URL when set, else start the embedded servers
    (ARTISAN_NATS_CLUSTER of them for NATS: one, or a local JetStream cluster).

    An embedded NATS gets ARTISAN_NATS_TOKEN, or a new random token; the token is put in this
    process's environment, where its own clients (shared/bus.py) and the services it starts
    find it. With `attach`, an embedded NATS that is already running (a running
    `artisan up`) is used, with the token read from that server's environment.
    """
    embedded: list[EmbeddedNats | EmbeddedPostgres] = []
    nats_url, database_url, token = infra.nats_url, infra.database_url, infra.nats_token
    if not nats_url and attach and not port_is_free("127.0.0.1", infra.nats_port):
        nats_url = f"nats://127.0.0.1:{infra.nats_port}"
        token = token or _running_token(infra)
    try:
        if not nats_url:
            token = token or new_nats_token()
            servers = _start_embedded_nats(infra, token)
            embedded.extend(servers)
            nats_url = ",".join(server.url for server in servers)
        if not database_url:
            postgres = start_postgres(infra.data_dir / "pgdata")
            embedded.append(postgres)
            database_url = postgres.url
        asyncio.run(apply_migrations(database_url))
    except BaseException:
        for part in reversed(embedded):
            part.stop()
        raise
    if token:
        os.environ[NATS_TOKEN_ENV] = token.get_secret_value()
    return nats_url, database_url, embedded


@dataclass(frozen=True)
class CommandDatabase:
    url: str
    started_here: bool  # the embedded database was not running: this command started it


@contextmanager
def command_database(infra: InfraSettings) -> Iterator[CommandDatabase]:
    """The migrated database a one-off command (`artisan users …`, `migrate`) works on:
    ARTISAN_DATABASE_URL when set, else the embedded one — shared with a running `artisan up`,
    or started for this command and stopped again when it ends (pgserver stops it only when
    its last user lets go, so a running `artisan up` keeps its database)."""
    if infra.database_url:
        asyncio.run(apply_migrations(infra.database_url))
        yield CommandDatabase(infra.database_url, started_here=False)
        return
    pgdata = infra.data_dir / "pgdata"
    started_here = not postgres_running(pgdata)
    postgres = start_postgres(pgdata)
    try:
        asyncio.run(apply_migrations(postgres.url))
        yield CommandDatabase(postgres.url, started_here)
    finally:
        postgres.stop()


def _start_embedded_nats(infra: InfraSettings, token: SecretStr) -> list[EmbeddedNats]:
    """One server on ARTISAN_NATS_PORT, or a cluster on the ports from there up."""
    if infra.nats_cluster == 1:
        log_file = infra.data_dir / "nats.log"
        return [start_nats(infra.data_dir / "nats", infra.nats_port, log_file, token=token)]
    ports = [infra.nats_port + n for n in range(infra.nats_cluster)]
    routes = [port + NATS_ROUTE_PORT_OFFSET for port in ports]
    cluster_dir = infra.data_dir / "nats-cluster"
    return start_nats_cluster(cluster_dir, ports, routes, infra.data_dir, token=token)


def _running_token(infra: InfraSettings) -> SecretStr:
    first_node = infra.data_dir / "nats-cluster" / "nats-1"
    token = running_nats_token(infra.data_dir / "nats") or running_nats_token(first_node)
    if token is None:
        raise NatsTokenError(
            f"NATS runs on port {infra.nats_port}, but not one that `artisan up` started as"
            f" this user from {infra.data_dir}: set {NATS_TOKEN_ENV} to its token"
        )
    return token


def start_stack(
    infra: InfraSettings,
    gateway: GatewaySettings,
    *,
    replicas: Mapping[str, int] | None = None,
    extra_env: dict[str, str] | None = None,
    metrics: MetricsSettings | None = None,
    model: ModelServerSettings | None = None,
    service_env: Mapping[str, dict[str, str]] | None = None,
) -> Stack:
    """Start everything, `replicas` processes of a service named there (one of any other, each
    with `service_env`'s variables for its name besides the common ones), and
    wait until the gateway answers /readyz; the metrics endpoints are listed for Prometheus in
    the data directory (metrics-targets.json)."""
    metrics = metrics or metrics_settings()
    require_free_port(gateway.host, gateway.port, "the gateway")
    infra.data_dir.mkdir(parents=True, exist_ok=True)
    nats_url, database_url, embedded = start_infra(infra)
    try:
        served = start_model(model or model_server_settings(), infra.data_dir)
    except BaseException:
        for part in reversed(embedded):
            part.stop()
        raise
    env = {
        "ARTISAN_NATS_URL": nats_url,
        "ARTISAN_DATABASE_URL": database_url,
        "ARTISAN_STREAM_REPLICAS": str(stream_replicas(infra)),
        "ARTISAN_HOST": gateway.host,
        "ARTISAN_PORT": str(gateway.port),
        # seals the model keys saved in Settings; like the NATS token, never on a command line
        SECRETS_KEY_ENV: ensure_secrets_key(infra.data_dir),
        # each process gets its own port (supervisor.py), on the gateway's interface
        "ARTISAN_METRICS_PORT": str(metrics.metrics_port),
        "ARTISAN_METRICS_HOST": gateway.host,
        **(services_env(served) if served else {}),
        **(extra_env or {}),
    }
    ports = MetricsPorts(gateway.host, metrics.metrics_port) if metrics.metrics_port else None
    supervisor = Supervisor(
        env, log_dir=infra.data_dir / "logs", metrics_ports=ports, service_env=service_env
    )
    parts = [*embedded, *([served] if served else [])]
    stack = Stack(
        nats_url, database_url, f"http://{gateway.host}:{gateway.port}", supervisor, parts
    )
    try:
        for name in SERVICES:
            if name != "gateway":  # last: once it answers, every service has been started
                supervisor.start(name, replicas=(replicas or {}).get(name, 1))
        supervisor.start("gateway")
        wait_until_ready(stack.gateway_url, supervisor)
        write_targets(infra.data_dir / TARGETS_FILE, stack.metrics_urls())
    except BaseException:
        stack.stop()
        raise
    return stack


def stream_replicas(infra: InfraSettings) -> int:
    """ARTISAN_STREAM_REPLICAS when set; else one copy on each server of an embedded cluster."""
    if "stream_replicas" in infra.model_fields_set or infra.nats_url:
        return infra.stream_replicas
    return min(infra.nats_cluster, MAX_STREAM_REPLICAS)


def wait_until_ready(gateway_url: str, supervisor: Supervisor, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        dead = [p for p in supervisor.processes if p.process.poll() is not None]
        if dead:
            raise ServiceStartError(
                "\n".join(
                    f"{p.label} exited during start-up:\n{supervisor.log_tail(p)}" for p in dead
                )
            )
        try:
            if httpx.get(f"{gateway_url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"the gateway at {gateway_url} was not ready after {timeout:.0f} s")
