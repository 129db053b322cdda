"""Session fixtures: a real Artisan system (embedded NATS + PostgreSQL, every service a process)."""

import asyncio
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest
from hypothesis import HealthCheck, settings

from shared.config import GatewaySettings, InfraSettings
from shared.db import create_pool, users
from shared.db.migrations import apply_migrations
from shared.launcher.embedded import free_port, start_postgres
from shared.launcher.stack import Stack, start_stack
from shared.metrics.settings import MetricsSettings
from tests.helpers import copy_pgdata

# property tests check behaviour, not speed: a busy two-core machine must not fail them
settings.register_profile("artisan", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("artisan")

# The suite's expectations are written against the hashed offline embedder (exact, instant,
# identical everywhere); the MiniLM model has tests of its own that choose it explicitly
# (tests/unit/providers/test_minilm.py, tests/integration/test_embedding_space.py).
os.environ.setdefault("ARTISAN_EMBED_PROVIDER", "local")

# short redelivery so crash tests finish quickly; a few retries before a file fails
TEST_ENV = {
    "ARTISAN_ACK_WAIT_SECONDS": "3",
    "ARTISAN_MAX_DELIVERIES": "3",
    "ARTISAN_RETRY_DELAY_SECONDS": "0.2",
    "ARTISAN_MAX_UPLOAD_BYTES": str(2 * 1024 * 1024),
    # tests poll a file 20 times a second (tests/helpers.py wait_for_status), twice the default
    # budget's steady rate, for up to minutes; the limits have tests of their own (test_fair_use)
    "ARTISAN_RATE_LIMIT_PER_MINUTE": "6000",
    # a lone user's files in flight stop at two shares (not 256), so a fairness test's busy user
    # still has files waiting when another user's file arrives (tests/integration/test_outbox.py)
    "ARTISAN_FILES_IN_FLIGHT_ALONE": "32",
}


_OWN_BASETEMP = pytest.StashKey[str]()
_FAILED = pytest.StashKey[bool]()


def pytest_configure(config: pytest.Config) -> None:
    """Each run in a base directory of its own: pgserver opens the directories above a data
    directory to its `pgserver` user, and every pytest start closes /tmp/pytest-of-<user> again,
    so a second run beside this one (a developer's, another checkout's) would lock this run's
    embedded PostgreSQL out of its own files."""
    if config.option.basetemp is None and not hasattr(config, "workerinput"):
        config.option.basetemp = tempfile.mkdtemp(prefix="artisan-tests-")
        config.stash[_OWN_BASETEMP] = config.option.basetemp


def pytest_unconfigure(config: pytest.Config) -> None:
    own = config.stash.get(_OWN_BASETEMP, None)
    if own is not None and not config.stash.get(_FAILED, False):
        shutil.rmtree(own, ignore_errors=True)  # a failed run's files are kept to look at


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    session.config.stash[_FAILED] = exitstatus != 0


@pytest.fixture(scope="session")
def pgdata_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated, stopped PostgreSQL data directory, made once a run: each system's database
    starts as a copy of it (tests/helpers.py copy_pgdata) instead of initdb and the migrations."""
    pgdata = tmp_path_factory.mktemp("pgdata-template") / "pgdata"
    postgres = start_postgres(pgdata)
    try:
        asyncio.run(apply_migrations(postgres.url))
    finally:
        postgres.stop()
    return pgdata


@pytest.fixture(scope="session")
def system(tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path) -> Iterator[Stack]:
    data_dir: Path = tmp_path_factory.mktemp("artisan")
    copy_pgdata(pgdata_template, data_dir)
    infra = InfraSettings(data_dir=data_dir, nats_port=free_port(), nats_url="", database_url="")
    gateway = GatewaySettings(host="127.0.0.1", port=free_port())
    env = {**TEST_ENV, "ARTISAN_DATA_DIR": str(data_dir)}
    # metrics ports counting up from a free one: another suite on this machine keeps its own
    metrics = MetricsSettings(metrics_port=free_port())
    stack = start_stack(infra, gateway, replicas={"compressor": 2}, extra_env=env, metrics=metrics)
    yield stack
    stack.stop()


@pytest.fixture(scope="session")
async def db(system: Stack) -> AsyncIterator[asyncpg.Pool]:
    pool = await create_pool(system.database_url)
    yield pool
    await pool.close()


ClientFactory = Callable[[], Awaitable[httpx.AsyncClient]]


@pytest.fixture
async def make_client(system: Stack, db: asyncpg.Pool) -> AsyncIterator[ClientFactory]:
    """Factory of API clients, each authenticated as a new user."""
    clients: list[httpx.AsyncClient] = []

    async def new_client() -> httpx.AsyncClient:
        # names are unique (migration 0021), and the session's system outlives each test
        user, key = await users.create_user(db, name=f"user-{uuid.uuid4().hex[:8]}")
        client = httpx.AsyncClient(
            base_url=system.gateway_url,
            headers={"Authorization": f"Bearer {key}"},
            timeout=30,
        )
        client.user_id = user.id  # type: ignore[attr-defined]
        clients.append(client)
        return client

    yield new_client
    for client in clients:
        await client.aclose()


@pytest.fixture
async def api_client(make_client: ClientFactory) -> httpx.AsyncClient:
    return await make_client()
