"""The reference pages under docs/reference/, generated from the code they describe: the HTTP
API from the gateway's OpenAPI schema, the settings from the pydantic-settings classes, the
command line from its argparse parser. tests/docs/test_reference_pages.py fails when a
committed page differs from what these produce; `python -m tests.docs.reference --write`
brings them up to date."""

from collections.abc import Callable
from pathlib import Path

REFERENCE_DIR = Path(__file__).resolve().parents[3] / "docs" / "reference"
REFRESH_COMMAND = ".venv/bin/python -m tests.docs.reference --write"


def generated_pages() -> dict[Path, str]:
    """Each reference file and the text it should hold now."""
    from tests.docs.reference import api, cli, settings  # the gateway and the CLI, on demand

    schema = api.gateway_schema()
    makers: dict[str, Callable[[], str]] = {
        "openapi.json": lambda: api.schema_json(schema),
        "api.md": lambda: api.render(schema),
        "settings.md": settings.render,
        "cli.md": cli.render,
    }
    return {REFERENCE_DIR / name: make() for name, make in makers.items()}


def stale_pages() -> list[Path]:
    """The reference files whose text is not what the code produces now (or that are missing)."""
    return [
        path
        for path, text in generated_pages().items()
        if not path.exists() or path.read_text() != text
    ]
