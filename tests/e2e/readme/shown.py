"""The shell commands a Markdown page (the README, a guide) shows, with what it shows them printing.

Three places hold commands: `bash` blocks (one command a line, `\\` continuing it, `#` comments
skipped), `text` blocks where a line starting `$ ` is a command and the lines after it, up to the
next `$ `, its output, and the first cell of a table row that names an `artisan` command (a
template such as `artisan users create NAME [--admin]`)."""

import re
from dataclasses import dataclass
from pathlib import Path

SHELL_BLOCKS = ("bash", "sh", "shell", "console")
HEADING = re.compile(r"^(#{1,6}) (.+?)\s*$")
FENCE = re.compile(r"^```(\w*)\s*$")
TABLE_COMMANDS = re.compile(r"^\|\s*(`artisan (?:[^|\\]|\\\|)*)\|")  # `\|` is a pipe in a cell
TRAILING_COMMENT = re.compile(r"\s{2,}#\s.*$")


@dataclass(frozen=True)
class Shown:
    section: str  # the heading it is under
    command: str  # continuation lines joined into one line
    output: str = ""  # what the page shows it printing, if it does
    template: bool = False  # a table's synopsis (NAME, [--flag]), not a command to paste


def shown_commands(page: Path, sections: tuple[str, ...] | None = None) -> list[Shown]:
    """Every command under the `##` headings named in `sections` (their `###` parts included),
    or on the whole page when no sections are named."""
    found: list[Shown] = []
    heading, covered, fence, block = "", sections is None, None, []
    for line in page.read_text().splitlines():
        if fence is not None:
            if line.strip() == "```":
                found += _commands_of_block(fence, block, heading) if covered else []
                fence, block = None, []
            else:
                block.append(line)
        elif match := FENCE.match(line):
            fence = match.group(1)
        elif match := HEADING.match(line):
            level, heading = len(match.group(1)), match.group(2)
            if sections is not None and level <= 2:
                covered = heading in sections
        elif covered and (match := TABLE_COMMANDS.match(line)):
            found += [Shown(heading, command, template=True) for command in _templates(match[1])]
    return found


def _commands_of_block(language: str, lines: list[str], heading: str) -> list[Shown]:
    if language in SHELL_BLOCKS:
        return [Shown(heading, command) for command in _logical_lines(lines)]
    shown: list[Shown] = []
    command: list[str] = []
    output: list[str] = []
    for line in lines:
        if line.startswith("$ ") or (command and not output and command[-1].endswith("\\")):
            if command and output:
                shown.append(Shown(heading, _joined(command), "\n".join(output)))
                command, output = [], []
            command.append(line.removeprefix("$ "))
        elif command:
            output.append(line)
    if command:
        shown.append(Shown(heading, _joined(command), "\n".join(output)))
    return shown


def _logical_lines(lines: list[str]) -> list[str]:
    commands: list[str] = []
    pending: list[str] = []
    for line in lines:
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending.append(line)
        if not line.rstrip().endswith("\\"):
            commands.append(TRAILING_COMMENT.sub("", _joined(pending)))
            pending = []
    return commands


def _joined(lines: list[str]) -> str:
    return " ".join(line.strip().removesuffix("\\").strip() for line in lines)


def _templates(cell: str) -> list[str]:
    """`artisan users revoke NAME` / `rotate NAME` -> both commands, the second completed."""
    pieces = re.findall(r"`([^`]+)`", cell.replace("\\|", "|"))
    first = pieces[0].split()
    return [p if p.startswith("artisan") else " ".join([*first[:-2], p]) for p in pieces]
