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


def test_ingestion_workers_run_below_the_interactive_services(system: Stack) -> None:
    supervisor = system.supervisor
    background = {
        name: [autogroup_nice(p.process.pid) for p in supervisor.running(name)]
        for name in BACKGROUND
    }
    interactive = {
        name: [autogroup_nice(p.process.pid) for p in supervisor.running(name)]
        for name in INTERACTIVE
    }
    assert all(background.values()) and all(interactive.values())
    assert {nice for nices in background.values() for nice in nices} == {BACKGROUND_NICE_STEPS}
    assert {nice for nices in interactive.values() for nice in nices} == {0}
