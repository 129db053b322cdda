"""Every command the README's quickstart and the guides' tour, files, documents and command table
show, run as a newcomer runs it — in bash, from a checkout, against `artisan up` on the embedded
NATS and PostgreSQL with a scratch HOME — and checked for what the page says it does
(tests/e2e/readme/checks.py says how each is checked). The commands are read from the pages, in
the order a reader meets them: one a page gains fails tests/unit/test_readme_commands.py until it
has a check here."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from shared.config import REPO_ROOT
from tests.e2e.readme.checks import check_for
from tests.e2e.readme.shown import Shown, shown_commands
from tests.e2e.readme.tour import Tour
from tests.e2e.readme.workspace import write_workspace
from tests.fakes.open_meteo import FakeOpenMeteo

pytestmark = pytest.mark.e2e
DOCS = REPO_ROOT / "docs"
# (page, its sections that hold commands; None: all of it)
PAGES: tuple[tuple[Path, tuple[str, ...] | None], ...] = (
    (REPO_ROOT / "README.md", ("Quickstart", "Documentation")),
    (DOCS / "tour.md", None),
    (DOCS / "files.md", None),
    (DOCS / "documents.md", None),
    (DOCS / "cli.md", ("Command line",)),
)


def readme_commands() -> list[Shown]:
    return [shown for page, sections in PAGES for shown in shown_commands(page, sections)]


@pytest.fixture(scope="module")
def tour(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tour]:
    root: Path = tmp_path_factory.mktemp("newcomer")
    with FakeOpenMeteo() as open_meteo:  # the weather tool's archive: this machine is offline
        newcomer = Tour(root, [shown.output for shown in readme_commands()], open_meteo)
        write_workspace(newcomer.checkout, newcomer.home)
        yield newcomer
        newcomer.down()


@pytest.mark.parametrize(
    "shown", readme_commands(), ids=[shown.command[:60] for shown in readme_commands()]
)
def test_the_readme_command_does_what_the_readme_says(tour: Tour, shown: Shown) -> None:
    check_for(shown).run(tour, shown)
