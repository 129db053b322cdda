"""Models that change while the services run: every process uses the version saved last.

A save bumps model_settings.version and, in the same transaction, notifies every process
(PostgreSQL NOTIFY, delivered only if the save commits); each reloads the row and builds its
providers again. A notification can be missed (a process starting, the database restarting), so
two more paths converge without one:
- every bus message carries its sender's version (VERSION_HEADER, set on publish); a process
  handed a message from newer settings reloads before handling it — so a chat request sent after
  a save is answered by the saved model, whichever notification arrived first;
- a message handled more than CHECK_EVERY_SECONDS after the last look reads the version again.
"""

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

import asyncpg
from faststream import BaseMiddleware
from faststream.response import PublishCommand

from shared.config import use_saved_models
from shared.db import model_settings
from shared.db.model_settings import StoredModels
from shared.models.changes import models_changed

logger = logging.getLogger(__name__)
CHECK_EVERY_SECONDS = 10.0
VERSION_HEADER = "Artisan-Models-Version"  # on every bus message: the models its sender used
_DATABASE_AWAY = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError)


class _Watch:
    """This process's view: the version in use, when the database was last read, and where."""

    version = 0  # 0: nothing saved, the environment's models
    unreadable: tuple[str, ...] = ()  # saved keys this process could not unseal
    checked_at = float("-inf")
    pool: asyncpg.Pool | None = None
    database_url = ""
    listener: asyncpg.Connection | None = None
    lock: asyncio.Lock | None = None
    reloads: ClassVar[set[asyncio.Task[None]]] = set()  # kept until done, not collected


def models_version() -> int:
    return _Watch.version


def unreadable_keys() -> tuple[str, ...]:
    """The saved keys not in use here: sealed with another ARTISAN_SECRETS_KEY."""
    return _Watch.unreadable


def apply(stored: StoredModels | None) -> None:
    """Use these saved models from the next model call on (None: the environment's)."""
    use_saved_models(stored.models if stored else None)
    models_changed()  # the registry builds every role again (shared/models/changes.py)
    _Watch.version = stored.version if stored else 0
    _Watch.unreadable = stored.unreadable if stored else ()
    _Watch.checked_at = time.monotonic()


async def load_saved_models(conn: asyncpg.Connection | asyncpg.Pool) -> None:
    """Use what was saved in Settings, if anything (the CLI does this once)."""
    apply(await model_settings.load(conn))


async def start_watching(pool: asyncpg.Pool, database_url: str) -> None:
    """At start-up, before any check or message: use what was saved, and hear of every save."""
    _Watch.pool, _Watch.database_url = pool, database_url
    await load_saved_models(pool)
    await _listen()


async def stop_watching() -> None:
    _Watch.pool = None
    if _Watch.listener is not None:
        await _Watch.listener.close()
        _Watch.listener = None


async def _listen() -> None:
    """A connection of its own that hears every save (a pooled one would be handed out)."""
    try:
        listener = await asyncpg.connect(_Watch.database_url)
        await listener.add_listener(model_settings.CHANGED_CHANNEL, _on_saved)
    except _DATABASE_AWAY as exc:
        logger.warning("not listening for saved models (looking again later): %r", exc)
        return
    _Watch.listener = listener


def _on_saved(_conn: object, _pid: int, _channel: str, payload: str) -> None:
    reload = asyncio.get_running_loop().create_task(catch_up(int(payload)))
    _Watch.reloads.add(reload)
    reload.add_done_callback(_Watch.reloads.discard)


async def catch_up(seen_version: int | None = None) -> None:
    """Reload the saved models when `seen_version` is newer than ours, or when the last look at
    the database is old; cheap otherwise (no query)."""
    if _Watch.pool is None:
        return  # a process that does not watch (the CLI): its models were loaded once
    due = time.monotonic() - _Watch.checked_at > CHECK_EVERY_SECONDS
    if not due and (seen_version is None or seen_version <= _Watch.version):
        return
    _Watch.lock = _Watch.lock or asyncio.Lock()
    async with _Watch.lock:
        if seen_version is not None and seen_version <= _Watch.version:
            return  # another message's reload got there first
        _Watch.checked_at = time.monotonic()
        if _Watch.listener is None or _Watch.listener.is_closed():
            await _listen()  # the database restarted: hear the next saves again
        try:
            if await model_settings.current_version(_Watch.pool) == _Watch.version:
                return
            stored = await model_settings.load(_Watch.pool)
        except _DATABASE_AWAY as exc:
            # the database is away: keep the models in use; the next message looks again
            logger.warning("could not read the saved models: %r", exc)
            _Watch.checked_at = float("-inf")
            return
        apply(stored)
        logger.info("now using the models saved in Settings (version %d)", _Watch.version)


class ModelsVersionMiddleware(BaseMiddleware):
    """Stamps what this process publishes with its models' version; catches up before handling
    a message stamped newer."""

    async def consume_scope(self, call_next: Callable[[Any], Awaitable[Any]], msg: Any) -> Any:
        stamp = str((msg.headers or {}).get(VERSION_HEADER, ""))
        await catch_up(int(stamp) if stamp.isdigit() else None)
        return await call_next(msg)

    async def publish_scope(
        self, call_next: Callable[[PublishCommand], Awaitable[Any]], cmd: PublishCommand
    ) -> Any:
        if _Watch.version:
            cmd.add_headers({VERSION_HEADER: str(_Watch.version)})
        return await call_next(cmd)
