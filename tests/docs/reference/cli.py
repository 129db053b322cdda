"""docs/reference/cli.md: every `artisan` command and subcommand, from its argparse parser.

The parser is found through the console script pyproject.toml installs (`artisan =
"module:main"`): that module's `build_parser()` is the one the command line uses, wherever the
CLI lives."""

import argparse
import importlib
import tomllib
from collections.abc import Iterator
from pathlib import Path

from tests.docs.reference.markdown import code, page, table

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = "artisan"
PARSER_BUILDER = "build_parser"
USAGE_WIDTH = 88  # fixed, not the terminal's: the page is the same wherever it is made
HEADER = ("argument", "help", "default")
INTRO = """\
# Command line

`artisan` runs the system (`artisan up`), manages its users and talks to it (upload, chat,
ask). This page is generated from the command's argument parser: run
`python -m tests.docs.reference --write` after changing one, and do not edit it by hand.
`artisan COMMAND -h` prints the same help in a terminal."""


def cli_parser() -> argparse.ArgumentParser:
    """The parser behind the installed `artisan` script."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        target = tomllib.load(file)["project"]["scripts"][SCRIPT]
    module = importlib.import_module(target.split(":")[0])
    return getattr(module, PARSER_BUILDER)()


def commands(
    parser: argparse.ArgumentParser,
) -> Iterator[tuple[argparse.ArgumentParser, str]]:
    """(parser, one-line help) of every command below this parser, depth first."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, subparser in action.choices.items():
                yield subparser, helps.get(name, "")
                yield from commands(subparser)


def usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def argument_rows(parser: argparse.ArgumentParser) -> list[tuple[str, str, str]]:
    formatter = argparse.HelpFormatter(parser.prog)
    return [
        (_name(action), formatter._expand_help(action) if action.help else "", _default(action))
        for action in parser._actions
        if not isinstance(action, argparse._HelpAction | argparse._SubParsersAction)
    ]


def _name(action: argparse.Action) -> str:
    if not action.option_strings:
        return code(action.metavar or action.dest)
    takes_value = action.nargs != 0
    metavar = f" {action.metavar or action.dest.upper()}" if takes_value else ""
    return ", ".join(code(option + metavar) for option in action.option_strings)


def _default(action: argparse.Action) -> str:
    if action.default in (None, False, [], argparse.SUPPRESS) or action.required:
        return ""
    return code(action.default)


def command_section(parser: argparse.ArgumentParser, summary: str) -> list[str]:
    depth = parser.prog.count(" ") + 1  # `artisan up` is a section, `artisan users create` in it
    lines = [f"{'#' * depth} {parser.prog}", "", summary, "", "```text", usage(parser), "```", ""]
    rows = argument_rows(parser)
    return lines + ([*table(HEADER, rows), ""] if rows else [])


def render() -> str:
    root = cli_parser()
    lines = [INTRO, "", "```text", usage(root), "```", ""]
    for parser, summary in commands(root):
        lines.extend(command_section(parser, summary))
    return page(lines)
