"""The upload progress display: bars, in-place redraw on a terminal, plain lines otherwise."""

import io
from pathlib import Path

import pytest

from shared.cli import progress_view
from shared.cli.progress_view import (
    LineView,
    TerminalView,
    fit,
    make_view,
    progress_bar,
    progress_line,
    redraw,
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


def test_redraw_moves_up_over_the_previous_live_block_and_clears_it() -> None:
    text = redraw(2, ["done.md ready"], ["a.md 40%"], columns=80)
    assert text == "\x1b[2F\x1b[Jdone.md ready\na.md 40%\n"
    assert redraw(0, [], ["a"], columns=80) == "\x1b[Ja\n"


def test_redraw_keeps_lines_narrower_than_the_terminal() -> None:
    assert redraw(0, [], ["x" * 100], columns=20) == "\x1b[J" + "x" * 19 + "\n"


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress_view.shutil, "get_terminal_size", lambda: (80, 24))


@pytest.mark.usefixtures("terminal")
def test_terminal_view_redraws_unfinished_files_in_place_and_prints_finished_ones_once() -> None:
    out = io.StringIO()
    states = [FileState(Path("a.md")), FileState(Path("b.md"))]
    view = TerminalView(states, out)
    view.tick()
    first = out.getvalue()
    assert first.startswith(progress_view.CURSOR_HIDE) and first.count("Uploading…") == 2

    states[0].apply({"status": "ready", "stage": "ready", "progress": 100, "message": "Ready"})
    view.changed(states[0])
    view.tick()
    second = out.getvalue()[len(first) :]
    assert second.startswith("\x1b[2F\x1b[J")  # back over both bars
    assert "a.md  [██████████] 100%  Ready" in second

    view.changed(states[1])
    view.tick()
    third = out.getvalue()[len(first) + len(second) :]
    assert third.startswith("\x1b[1F") and "a.md" not in third  # the finished file stays put

    view.close()
    assert out.getvalue().endswith(progress_view.CURSOR_SHOW)


@pytest.mark.usefixtures("terminal")
def test_terminal_view_draws_nothing_when_closed_before_it_started() -> None:
    out = io.StringIO()
    TerminalView([FileState(Path("a.md"))], out).close()
    assert out.getvalue() == ""


def test_terminal_view_shows_what_fits_when_files_outnumber_the_rows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(progress_view.shutil, "get_terminal_size", lambda: (80, 10))
    out = io.StringIO()
    view = TerminalView([FileState(Path(f"f{i}.md")) for i in range(30)], out)
    view.tick()
    lines = out.getvalue().splitlines()
    assert len(lines) == 8 and lines[-1] == "… and 23 more"  # two rows spare


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
