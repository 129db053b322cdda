"""Ingestion runs below the interactive paths: in the running system, every ingestion worker's
session has a lower CPU priority than the gateway's, chat's and context's."""

from pathlib import Path

import pytest

from shared.launcher.stack import Stack
from shared.scheduling import AUTOGROUP, BACKGROUND_NICE_STEPS, autogroup_nice

pytestmark = pytest.mark.skipif(
    not Path(AUTOGROUP.format(pid="self")).exists(), reason="the kernel does not group by session"
)
BACKGROUND = ("extractor", "chunker", "compressor", "embedder")
INTERACTIVE = ("gateway", "chat", "context")


def session_nices(system: Stack, names: tuple[str, ...]) -> dict[str, list[int | None]]:
    """Each named service's running processes' session priorities."""
    running = system.supervisor.running
    return {name: [autogroup_nice(p.process.pid) for p in running(name)] for name in names}


def test_ingestion_workers_run_below_the_interactive_services(system: Stack) -> None:
    background, interactive = session_nices(system, BACKGROUND), session_nices(system, INTERACTIVE)
    assert all(background.values()) and all(interactive.values())
    assert {nice for nices in background.values() for nice in nices} == {BACKGROUND_NICE_STEPS}
    assert {nice for nices in interactive.values() for nice in nices} == {0}
