"""The upload progress display: bars, in-place redraw on a terminal, plain lines otherwise."""

import io
import re
from pathlib import Path

import pytest
from rich.console import Console
from rich.live import Live

from shared.cli.progress_view import (
    LineView,
    TerminalView,
    fit,
    make_view,
    progress_bar,
    progress_line,
)
from shared.cli.tracker import FileState


@pytest.mark.parametrize(
    ("percent", "bar"),
    [
        (0, "░░░░░░░░░░"),
        (60, "██████░░░░"),
        (100, "██████████"),
        (-5, "░░░░░░░░░░"),
        (140, "██████████"),
    ],
)
def test_progress_bar(percent: int, bar: str) -> None:
    assert progress_bar(percent) == bar


def test_progress_line_matches_the_documented_shape() -> None:
    state = FileState(
        Path("name"), status="processing", progress=60, message="Compressing chunks 5/12"
    )
    assert progress_line(state, 4) == "name  [██████░░░░]  60%  Compressing chunks 5/12"


def test_names_are_padded_to_a_column_and_long_ones_keep_their_end() -> None:
    assert progress_line(FileState(Path("a.md")), 6).startswith("a.md    [")
    assert fit("folder/deep/report.md", 10) == "…report.md"
    assert len(fit("x" * 50, 10)) == 10


def terminal_view(states: list[FileState], height: int = 24) -> tuple[TerminalView, io.StringIO]:
    """A view drawing on a fake 80-column terminal, as rich renders to a real one."""
    out = io.StringIO()
    view = TerminalView(states, out)
    view.console = Console(file=out, force_terminal=True, width=80, height=height)
    view._live = Live(console=view.console, auto_refresh=False, vertical_overflow="ellipsis")
    return view, out


def plain(text: str) -> str:
    """What the terminal shows, without the escape sequences that draw it."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def test_terminal_view_redraws_unfinished_files_in_place_and_prints_finished_ones_once() -> None:
    states = [FileState(Path("a.md")), FileState(Path("b.md"))]
    view, out = terminal_view(states)
    view.tick()
    first = plain(out.getvalue())
    assert first.count("Uploading…") == 2 and "  0%" in first

    states[0].apply({"status": "ready", "stage": "ready", "progress": 100, "message": "Ready"})
    view.changed(states[0])
    view.tick()
    second = plain(out.getvalue())[len(first) :]
    _, final, after = second.partition("a.md  [██████████] 100%  Ready")
    assert final and "a.md" not in after and "b.md" in after  # printed above the bars, final

    view.changed(states[1])
    view.tick()
    third = plain(out.getvalue())[len(first) + len(second) :]
    assert "a.md" not in third and "b.md" in third  # the finished file stays put
    view.close()
    assert "\x1b[?25h" in out.getvalue()  # the cursor is shown again


def test_terminal_view_draws_nothing_when_closed_before_it_started() -> None:
    view, out = terminal_view([FileState(Path("a.md"))])
    view.close()
    assert out.getvalue() == ""


def test_terminal_view_shows_what_fits_when_files_outnumber_the_rows() -> None:
    view, out = terminal_view([FileState(Path(f"f{i:02}.md")) for i in range(30)], height=10)
    view.tick()
    shown = plain(out.getvalue())
    assert "f00.md" in shown and "f29.md" not in shown  # the rest are elided, not scrolled


def test_line_view_prints_one_plain_line_per_stage_change() -> None:
    out = io.StringIO()
    state = FileState(Path("a.md"))
    view = LineView([state], out)
    for stage, progress in [
        ("extracting", 10),
        ("processing", 55),
        ("processing", 70),
        ("ready", 100),
    ]:
        status = "ready" if stage == "ready" else "processing"
        state.apply({"status": status, "stage": stage, "progress": progress, "message": stage})
        view.changed(state)
    lines = out.getvalue().splitlines()
    assert [line.split()[-1] for line in lines] == ["extracting", "processing", "ready"]
    assert "\x1b" not in out.getvalue()


def test_a_pipe_gets_plain_lines() -> None:
    assert isinstance(make_view([], io.StringIO()), LineView)
