"""Restarts the embedded NATS and PostgreSQL when they die, as the supervisor restarts services.

Only embedded servers are watched: external ones (ARTISAN_NATS_URL, ARTISAN_DATABASE_URL) are
their operator's. Every client reconnects by itself once its server is back (shared/bus.py;
asyncpg's pool replaces a broken connection when it is next acquired).
"""

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from shared.launcher.supervisor import (
    MAX_RESTART_DELAY_SECONDS,
    QUICK_EXIT_SECONDS,
    RESTART_DELAY_SECONDS,
)

logger = logging.getLogger(__name__)


class EmbeddedServer(Protocol):
    name: str

    def is_alive(self) -> bool: ...

    def restart(self) -> None: ...


@dataclass
class _Watched:
    server: EmbeddedServer
    started_at: float
    quick_failures: int = 0  # restarts in a row that failed or died soon after: the delay doubles

    def restart_delay(self) -> float:
        return min(MAX_RESTART_DELAY_SECONDS, RESTART_DELAY_SECONDS * 2**self.quick_failures)


class InfraSupervisor:
    """Owns the embedded servers of one Artisan instance while it runs."""

    def __init__(self, servers: Sequence[EmbeddedServer]) -> None:
        self._watched = [_Watched(server, time.monotonic()) for server in servers]

    def restart_dead(self) -> list[str]:
        """Restart each server that died (on its port, data and credentials, so clients find it
        again); one that will not come back is tried again later, less and less often."""
        restarted = []
        for watched in self._watched:
            if watched.server.is_alive():
                continue
            now = time.monotonic()
            if now - watched.started_at < watched.restart_delay():
                continue
            died_soon = now - watched.started_at < QUICK_EXIT_SECONDS + watched.restart_delay()
            watched.quick_failures = watched.quick_failures + 1 if died_soon else 0
            watched.started_at = now
            try:
                watched.server.restart()
            except Exception as exc:  # whatever stopped it this time, a later attempt may pass
                logger.warning(
                    "%s did not restart (%s); trying again in %.0f s",
                    watched.server.name,
                    exc,
                    watched.restart_delay(),
                )
                continue
            restarted.append(watched.server.name)
        return restarted
