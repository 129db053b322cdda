"""The commands the README and the guides show and their checks stay in step: each command a page
shows has exactly one check in tests/e2e/readme/checks.py, and each check has a command to run."""

from tests.e2e.readme.checks import CHECKS, check_for
from tests.e2e.readme.shown import Shown, shown_commands
from tests.e2e.test_readme_commands import readme_commands


def test_every_command_the_readme_shows_has_a_check() -> None:
    commands = readme_commands()
    assert len(commands) > 20  # the sections are found: a renamed heading would show none
    checked = [check_for(shown) for shown in commands]
    assert not [check.pattern for check in CHECKS if check not in checked], "checks for nothing"


def test_a_command_the_readme_gains_needs_a_check(tmp_path) -> None:
    page = tmp_path / "README.md"
    page.write_text("## Quickstart\n\n```bash\nartisan frobnicate --all\n```\n")
    [shown] = shown_commands(page, ("Quickstart",))
    assert shown == Shown("Quickstart", "artisan frobnicate --all")
    assert not [check for check in CHECKS if check.matches(shown)]


def test_a_page_without_named_sections_is_read_whole(tmp_path) -> None:
    page = tmp_path / "guide.md"
    page.write_text(
        "# Guide\n\n## One\n\n```bash\nartisan files\n```\n\n## Two\n\n```bash\nartisan mcp\n```\n"
    )
    assert [shown.command for shown in shown_commands(page)] == ["artisan files", "artisan mcp"]


def test_commands_outputs_and_templates_are_read_as_the_page_shows_them(tmp_path) -> None:
    page = tmp_path / "README.md"
    page.write_text(
        '## A short tour\n\n```text\n$ artisan ask \\\n  "Why?"\nBecause. [Ref: 1]\n'
        "$ artisan files\nno files yet\n```\n\n### Deeper\n\n```bash\n# a comment\n"
        "artisan sync ~/notes   # keeps going\n```\n\n## Elsewhere\n\n```bash\nartisan up\n```\n"
        "\n## Command line\n\n| command | |\n|---|---|\n"
        "| `artisan users revoke NAME` / `rotate NAME` | x |\n"
        "| `artisan chat [--new \\| --x]` | y |\n"
    )
    shown = shown_commands(page, ("A short tour", "Command line"))
    assert shown == [
        Shown("A short tour", 'artisan ask "Why?"', "Because. [Ref: 1]"),
        Shown("A short tour", "artisan files", "no files yet"),
        Shown("Deeper", "artisan sync ~/notes"),
        Shown("Command line", "artisan users revoke NAME", template=True),
        Shown("Command line", "artisan users rotate NAME", template=True),
        Shown("Command line", "artisan chat [--new | --x]", template=True),
    ]
