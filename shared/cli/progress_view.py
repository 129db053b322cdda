"""The upload's progress display: bars redrawn in place on a terminal, plain lines otherwise."""

import os
import shutil
from collections.abc import Sequence
from typing import TextIO

from shared.cli.tracker import FileState, View

BAR_WIDTH = 10
MAX_NAME_WIDTH = 40
CURSOR_HIDE, CURSOR_SHOW, CLEAR_TO_END = "\x1b[?25l", "\x1b[?25h", "\x1b[J"


def progress_bar(percent: int, width: int = BAR_WIDTH) -> str:
    filled = round(max(0, min(100, percent)) * width / 100)
    return "█" * filled + "░" * (width - filled)


def fit(text: str, width: int) -> str:
    """Text cut to width, keeping its end (the file name) when it is too long."""
    return text if len(text) <= width else "…" + text[len(text) - width + 1 :]


def progress_line(state: FileState, name_width: int) -> str:
    """`name  [██████░░░░]  60%  Compressing chunks 5/12`"""
    name = fit(state.name, name_width).ljust(name_width)
    return f"{name}  [{progress_bar(state.progress)}] {state.progress:>3}%  {state.message}"


def name_width(states: Sequence[FileState]) -> int:
    return min(MAX_NAME_WIDTH, max((len(s.name) for s in states), default=0))


def redraw(previous_lines: int, permanent: Sequence[str], live: Sequence[str], columns: int) -> str:
    """ANSI text replacing the previous live block: permanent lines (scrolling away), then live."""
    cursor_up = f"\x1b[{previous_lines}F" if previous_lines else ""
    lines = [*permanent, *live]
    # one column spare: a line filling the width would wrap and break the line count
    return cursor_up + CLEAR_TO_END + "".join(line[: max(1, columns - 1)] + "\n" for line in lines)


class TerminalView:
    """A terminal: bars of unfinished files redrawn in place; finished files scroll up, final."""

    def __init__(self, states: Sequence[FileState], out: TextIO) -> None:
        self.states, self.out, self.width = states, out, name_width(states)
        self._live_lines, self._finished = 0, set[FileState]()
        self._dirty, self._started, self._closed = True, False, False

    def changed(self, state: FileState) -> None:
        self._dirty = True

    def tick(self) -> None:
        if not self._dirty:
            return
        if not self._started:  # not at construction: an early error must leave the terminal as is
            self._started = True
            self.out.write(CURSOR_HIDE)
        self._dirty = False
        columns, rows = shutil.get_terminal_size()
        finished = [s for s in self.states if s.done and s not in self._finished]
        self._finished.update(finished)
        live = [progress_line(s, self.width) for s in self.states if not s.done]
        if len(live) > rows - 2:  # the cursor cannot move above the screen: show what fits
            live = [*live[: max(1, rows - 3)], f"… and {len(live) - max(1, rows - 3)} more"]
        permanent = [progress_line(s, self.width) for s in finished]
        self.out.write(redraw(self._live_lines, permanent, live, columns))
        self.out.flush()
        self._live_lines = len(live)

    def close(self) -> None:
        if self._started and not self._closed:
            self._closed, self._dirty = True, True
            self.tick()
            self.out.write(CURSOR_SHOW)
            self.out.flush()


class LineView:
    """Not a terminal (a pipe, a log file): one plain line each time a file changes stage."""

    def __init__(self, states: Sequence[FileState], out: TextIO) -> None:
        self.out, self.width = out, name_width(states)
        self._shown: dict[FileState, tuple[str, str]] = {}

    def changed(self, state: FileState) -> None:
        if self._shown.get(state) != (state.status, state.stage):
            self._shown[state] = (state.status, state.stage)
            print(progress_line(state, self.width), file=self.out, flush=True)

    def tick(self) -> None:
        pass

    def close(self) -> None:
        pass


def make_view(states: Sequence[FileState], out: TextIO) -> View:
    live = out.isatty() and os.environ.get("TERM") != "dumb"
    return TerminalView(states, out) if live else LineView(states, out)
