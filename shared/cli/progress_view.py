"""The upload's progress display: bars redrawn in place on a terminal (rich), plain lines
otherwise."""

import os
from collections.abc import Sequence
from typing import TextIO

from rich.console import Console
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from shared.cli.tracker import FileState, View

BAR_WIDTH = 10
MAX_NAME_WIDTH = 40


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


class TerminalView:
    """A terminal (rich's Live display): bars of unfinished files redrawn in place; finished
    files are printed above them once, final, and scroll away."""

    def __init__(self, states: Sequence[FileState], out: TextIO) -> None:
        self.states, self.width = states, name_width(states)
        self.console = Console(file=out, highlight=False)
        self._live = Live(console=self.console, auto_refresh=False, vertical_overflow="ellipsis")
        self._finished = set[FileState]()
        self._dirty, self._started, self._closed = True, False, False

    def changed(self, state: FileState) -> None:
        self._dirty = True

    def note(self, line: str) -> None:
        """A line above the bars, at once (the bars may not move for a while)."""
        self.console.print(Text(line))  # while Live runs, rich prints it above the bars

    def tick(self) -> None:
        if not self._dirty:
            return
        if not self._started:  # not at construction: an early error must leave the terminal as is
            self._started = True
            self._live.start()
        self._dirty = False
        finished = [s for s in self.states if s.done and s not in self._finished]
        self._finished.update(finished)
        self._live.update(self.bars(), refresh=True)
        for state in finished:  # above the bars, which are drawn again below it
            self._live.console.print(Text(progress_line(state, self.width)))

    def bars(self) -> Table:
        """One row per unfinished file: name, bar, percent, what it is doing."""
        table = Table.grid(padding=(0, 2))
        for state in self.states:
            if not state.done:
                table.add_row(
                    Text(fit(state.name, self.width).ljust(self.width)),
                    ProgressBar(total=100, completed=state.progress, width=BAR_WIDTH),
                    Text(f"{state.progress:>3}%  {state.message}"),
                )
        return table

    def close(self) -> None:
        if self._started and not self._closed:
            self._closed, self._dirty = True, True
            self.tick()
            self._live.stop()


class LineView:
    """Not a terminal (a pipe, a log file): one plain line each time a file changes stage."""

    def __init__(self, states: Sequence[FileState], out: TextIO) -> None:
        self.out, self.width = out, name_width(states)
        self._shown: dict[FileState, tuple[str, str]] = {}

    def changed(self, state: FileState) -> None:
        if self._shown.get(state) != (state.status, state.stage):
            self._shown[state] = (state.status, state.stage)
            print(progress_line(state, self.width), file=self.out, flush=True)

    def note(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def tick(self) -> None:
        pass

    def close(self) -> None:
        pass


def make_view(states: Sequence[FileState], out: TextIO) -> View:
    live = out.isatty() and os.environ.get("TERM") != "dumb"
    return TerminalView(states, out) if live else LineView(states, out)
