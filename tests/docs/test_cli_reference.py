"""Every `artisan` argument is explained: the CLI page is generated from the parser, so an
argument without `help=` would be a blank cell a user has to guess."""

from tests.docs.reference import cli


def test_every_argument_of_every_command_has_help() -> None:
    blank = [
        f"{parser.prog} {name}"
        for parser, _ in cli.commands(cli.cli_parser())
        for name, help_text, _ in cli.argument_rows(parser)
        if not help_text
    ]
    assert not blank, "arguments without help=: " + ", ".join(blank)
