"""A service's CPU priority and heap, checked in fresh processes: lowering a priority cannot be
undone without privilege, so the test process keeps its own."""

import subprocess
import sys
from pathlib import Path

import pytest

from shared.scheduling import BACKGROUND_NICE_STEPS

LOWER_AND_REPORT = (
    "from pathlib import Path; from shared.scheduling import run_in_background;"
    "run_in_background(); print(Path('/proc/self/autogroup').read_text())"
)
needs_autogroup = pytest.mark.skipif(
    not Path("/proc/self/autogroup").exists(), reason="the kernel does not group by session"
)


def reported_nice(new_session: bool) -> int:
    result = subprocess.run(
        [sys.executable, "-c", LOWER_AND_REPORT],
        capture_output=True,
        text=True,
        check=True,
        start_new_session=new_session,
    )
    return int(result.stdout.split("nice")[1])


@needs_autogroup
def test_a_service_leading_its_session_lowers_the_sessions_priority() -> None:
    assert reported_nice(new_session=True) == BACKGROUND_NICE_STEPS


@needs_autogroup
def test_a_process_started_from_a_shell_leaves_the_shells_session_alone() -> None:
    before = int(Path("/proc/self/autogroup").read_text().split("nice")[1])
    assert reported_nice(new_session=False) == before


def test_what_start_up_loaded_is_left_out_of_later_collections() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "import gc; from shared.scheduling import freeze_startup_heap;"
            "freeze_startup_heap(); print(gc.get_freeze_count())",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert int(result.stdout) > 1000
