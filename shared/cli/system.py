"""`artisan up`, `artisan run`, `artisan migrate`, `artisan reembed`, `artisan users …`."""

import asyncio
import importlib
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

import asyncpg

from shared.config import gateway_settings, infra_settings, model_settings
from shared.db import users
from shared.db.migrations import apply_migrations
from shared.launcher.embedded import NatsTokenError, PortBusyError, port_is_free
from shared.launcher.embedded_model import EmbeddedModel, ModelFileError
from shared.launcher.local_user import ensure_local_user
from shared.launcher.metrics_ports import TARGETS_FILE
from shared.launcher.reembed import files_in_progress, queue_reembedding
from shared.launcher.sizing import available_cpus, size_for
from shared.launcher.stack import (
    ServiceStartError,
    Stack,
    command_database,
    start_infra,
    start_stack,
)
from shared.launcher.supervisor import SERVICES, ServiceProcess, Supervisor
from shared.models.hosts import ModelHostRefused
from shared.models.server_settings import model_server_settings

T = TypeVar("T")


def up(
    compressors: int,
    chunkers: int | None = None,
    *,
    embedders: int | None = None,
    nats_cluster: int | None = None,
    model: str | None = None,
) -> int:
    infra, gateway = infra_settings(), gateway_settings()
    sizing = size_for(
        available_cpus(),
        chunkers=chunkers,
        embedders=embedders,
        embed_threads=model_settings().embed_threads,
    )
    if nats_cluster is not None:  # else ARTISAN_NATS_CLUSTER, one server by default
        infra = infra.model_copy(update={"nats_cluster": nats_cluster})
    served = model_server_settings()
    if model is not None:  # else ARTISAN_MODEL_FILE, none by default
        served = served.model_copy(update={"model_file": model})
    replicas = {"compressor": compressors, "chunker": sizing.chunkers, "embedder": sizing.embedders}
    print(f"Starting Artisan (data in {infra.data_dir}) …", flush=True)
    try:
        stack = start_stack(
            infra, gateway, replicas=replicas, model=served, service_env=sizing.service_env()
        )
    except (PortBusyError, ServiceStartError, NatsTokenError, ModelFileError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    stop_requested = False

    def request_stop(*_: object) -> None:
        nonlocal stop_requested
        stop_requested = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    try:
        key = ensure_local_user(stack.database_url, infra.data_dir / "local-user.key")
        metrics = _metrics_lines(stack.metrics_urls(), infra.data_dir / TARGETS_FILE)
        lines = f"  {sizing.describe()}\n{metrics}{_model_line(stack)}"
        print(_banner(stack.gateway_url, key, replicas, lines), flush=True)
        while not stop_requested:
            for label in stack.heal():  # the embedded NATS and Postgres, then the services
                print(f"{label} stopped unexpectedly; restarted it", flush=True)
            while stack.supervisor.refused:
                _report_refusal(stack.supervisor, stack.supervisor.refused.pop())
            time.sleep(0.5)
    finally:
        print("\nStopping Artisan …", flush=True)
        stack.stop()
        print("Stopped. Your data is kept; `artisan up` starts again where you left off.")
    return 0


def _report_refusal(supervisor: Supervisor, service: ServiceProcess) -> None:
    print(
        f"{service.label} refused to start and stays stopped (restarting would not help):\n"
        f"{supervisor.log_tail(service)}\nFix that, then restart `artisan up`.",
        file=sys.stderr,
        flush=True,
    )


def _banner(url: str, key: str, replicas: dict[str, int], details: str) -> str:
    services = [
        f"{replicas[name]}× {name}" if replicas.get(name, 1) > 1 or name == "compressor" else name
        for name in SERVICES
    ]
    # the key rides in the fragment, which the browser keeps to itself; the page stores it
    return (
        f"\nArtisan is running at {url}  (API docs: {url}/docs)\n"
        f"  open in your browser: {url}/#key={key}\n"
        f"  services: {', '.join(services)}\n"
        f"  API key of the local user: {key}\n"
        f"  try:  artisan upload ./my-notes   ·   artisan chat\n"
        f"{details}"
        f"Press Ctrl-C to stop.\n"
    )


def _model_line(stack: Stack) -> str:
    models = [part for part in stack.embedded if isinstance(part, EmbeddedModel)]
    if not models:
        return ""
    every_role = stack.supervisor.env.get("ARTISAN_LLM_ROLES") == "all"
    work = "every role" if every_role else "answers; ingestion by the offline rules"
    return f"  model: {models[0].alias} on llama.cpp, {models[0].base_url} ({work})\n"


def _metrics_lines(urls: dict[str, str], targets: Path) -> str:
    """Where Prometheus finds each process: the gateway's URL, then `label :port` for the rest."""
    others = [f"{label} :{urlsplit(url).port}" for label, url in urls.items() if label != "gateway"]
    return (
        f"  metrics: {urls['gateway']}, and /metrics of each service process on\n"
        f"    {', '.join(others) or 'no port (ARTISAN_METRICS_PORT=0)'}\n"
        f"    (as Prometheus targets: {targets})\n"
    )


def run(service: str) -> int:
    if service not in SERVICES:
        print(
            f"error: unknown service {service!r}; choose from {', '.join(SERVICES)}",
            file=sys.stderr,
        )
        return 2
    importlib.import_module(SERVICES[service]).main()
    return 0


def migrate() -> int:
    applied = _on_database(lambda url: apply_migrations(url))
    print(f"applied: {', '.join(applied)}" if applied else "the database is up to date")
    return 0


def create_user(name: str, *, admin: bool = False) -> int:
    async def create(conn: asyncpg.Connection) -> str:
        _, key = await users.create_user(conn, name=name, admin=admin)
        return key

    try:
        key = _with_connection(create)
    except users.UserNameTaken as taken:
        print(f"error: {taken}", file=sys.stderr)
        return 1
    role = "admin" if admin else "user"
    print(f"created {role} {name!r}; API key (shown once, keep it safe):\n{key}")
    return 0


def set_admin(name: str, *, admin: bool) -> int:
    """An admin may connect this instance's models in the web client's Settings."""
    changed = _with_connection(lambda conn: users.set_admin(conn, name=name, admin=admin))
    if not changed:
        return _no_such_user(name)
    print(f"{name!r} {'is now an admin' if admin else 'is no longer an admin'} of this Artisan")
    return 0


def list_users() -> int:
    rows = _with_connection(users.list_users)
    print(f"{'NAME':<24} {'ID':<36}  {'CREATED':<16}  {'KEY':<7}  {'ADMIN':<5}  FILES")
    for row in rows:
        created = row["created_at"].strftime("%Y-%m-%d %H:%M")
        key = "active" if row["active"] else "revoked"
        admin = "yes" if row["is_admin"] else ""
        print(
            f"{row['name']:<24} {row['id']!s:<36}  {created:<16}  {key:<7}  {admin:<5}"
            f"  {row['files']}"
        )
    return 0


def revoke_user(name: str) -> int:
    """The user's key stops working at once; its files and conversations stay."""
    revoked = _with_connection(lambda conn: users.revoke_api_key(conn, name=name))
    if not revoked:
        return _no_such_user(name)
    print(f"revoked the API key of {name!r}; `artisan users rotate {name}` gives it a new one")
    return 0


def rotate_user(name: str) -> int:
    async def rotate(conn: asyncpg.Connection) -> str | None:
        user = await users.find_user_by_name(conn, name=name)
        return await users.rotate_api_key(conn, user_id=user.id) if user else None

    key = _with_connection(rotate)
    if key is None:
        return _no_such_user(name)
    print(
        f"new API key of {name!r} (shown once, keep it safe; the old one no longer works):\n{key}"
    )
    return 0


def _no_such_user(name: str) -> int:
    print(f"error: no user named {name!r} (see `artisan users list`)", file=sys.stderr)
    return 1


def _with_connection(work: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
    async def connected(database_url: str) -> T:
        conn = await asyncpg.connect(database_url)
        try:
            return await work(conn)
        finally:
            await conn.close()

    return _on_database(connected)


def _on_database(work: Callable[[str], Awaitable[T]]) -> T:
    """Run `work` on the command's database: the configured one, or the embedded one (that of a
    running `artisan up`, or started for this command alone and stopped again after it). The
    database is opened here, outside any event loop, so `work` runs in this command's one loop."""
    with command_database(infra_settings()) as database:
        if database.started_here:
            _note("Artisan is not running: started its database for this command …")
        result = asyncio.run(work(database.url))
    if database.started_here:
        _note("… and stopped it again.")
    return result


def _note(text: str) -> None:
    """What a command says about itself goes to stderr, so its output stays what it printed."""
    print(text, file=sys.stderr, flush=True)


def reembed() -> int:
    """Re-embed everything with the configured embedder; follows progress if Artisan is up."""
    infra, gateway = infra_settings(), gateway_settings()
    try:
        nats_url, database_url, embedded = start_infra(infra, attach=True)
    except NatsTokenError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        follow = _gateway_up(gateway.host, gateway.port)
        asyncio.run(_reembed(database_url, nats_url, follow=follow))
    except ModelHostRefused as exc:  # the operator's rules refuse the embeddings endpoint
        print(f"error: nothing was re-embedded: {exc}", file=sys.stderr)
        return 2
    finally:
        for part in reversed(embedded):
            part.stop()
    return 0


async def _reembed(database_url: str, nats_url: str, *, follow: bool) -> None:
    plan = await queue_reembedding(database_url, nats_url)
    print(
        f"re-embedding {plan.chunks} chunks of {plan.files} files and {plan.turns} journal"
        f" turns with {plan.model} ({plan.dimension} dimensions)",
        flush=True,
    )
    if not follow:
        print("queued: `artisan up` processes them; `artisan files` shows the progress")
        return
    while remaining := await files_in_progress(database_url):
        print(f"\r  {remaining} files still re-embedding …   ", end="", flush=True)
        await asyncio.sleep(0.5)
    print("\r  done: every file is ready again.            ")


def _gateway_up(host: str, port: int) -> bool:
    return not port_is_free(host, port)
