"""A service's CPU priority and heap, checked in fresh processes: lowering a priority cannot be
undone without privilege, so the test process keeps its own."""

import subprocess
import sys
from pathlib import Path

import pytest

from shared.scheduling import AUTOGROUP, BACKGROUND_NICE_STEPS, autogroup_nice

LOWER_AND_REPORT = (
    "from shared.scheduling import autogroup_nice, run_in_background;"
    "run_in_background(); print(autogroup_nice())"
)
needs_autogroup = pytest.mark.skipif(
    not Path(AUTOGROUP.format(pid="self")).exists(), reason="the kernel does not group by session"
)


def reported_nice(new_session: bool) -> int | None:
    result = subprocess.run(
        [sys.executable, "-c", LOWER_AND_REPORT],
        capture_output=True,
        text=True,
        check=True,
        start_new_session=new_session,
    )
    shown = result.stdout.strip()
    return None if shown == "None" else int(shown)


@needs_autogroup
def test_a_service_leading_its_session_lowers_the_sessions_priority() -> None:
    assert reported_nice(new_session=True) == BACKGROUND_NICE_STEPS


@needs_autogroup
def test_a_process_started_from_a_shell_leaves_the_shells_session_alone() -> None:
    before = autogroup_nice()
    assert reported_nice(new_session=False) == before


@needs_autogroup
def test_a_process_in_the_kernels_root_group_has_no_session_priority() -> None:
    # a CI runner's processes can live in the root group with init, where the kernel shows
    # nothing; reading them must not fail
    if Path(AUTOGROUP.format(pid=1)).read_text():
        pytest.skip("init leads a session group of its own here (a container's init)")
    assert autogroup_nice(1) is None


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
