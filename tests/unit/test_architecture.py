"""The codebase's shape, checked on every run: import boundaries, file and function size, no
dead code. A crossed boundary fails CI here, not in review."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE_ROOTS = ("shared", "services", "tests")
MAX_FILE_LINES = 300
MAX_FUNCTION_LINES = 60
# decorators that register a function with a framework: it is called, just not by our code
REGISTERING_DECORATORS = (
    "@router.*,@app.*,@consumes,@*.subscriber,@*.on_startup,@*.after_shutdown,@property,"
    "@pytest.fixture,@*.exception_handler,@*.middleware,@model_validator"
)


def python_files() -> list[Path]:
    return sorted(p for root in SOURCE_ROOTS for p in (ROOT / root).rglob("*.py"))


def bin_of(tool: str) -> str:
    return str(Path(sys.executable).with_name(tool))


def test_import_contracts_hold() -> None:
    """pyproject's [tool.importlinter] contracts: services independent, shared/ names no
    service, providers a leaf that knows no bus message, local providers only through the
    registry, no model built by the service layer or the gateway (which has shared.models.probe).
    The web client's modules have the same no-circle rule in test_web_client_modules.py."""
    result = subprocess.run(
        [bin_of("lint-imports"), "--no-cache"], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]


def test_every_file_is_small_enough_to_read_in_one_sitting() -> None:
    """A file past the limit is telling you about a module it is missing."""
    sizes = {str(p.relative_to(ROOT)): len(p.read_text().splitlines()) for p in python_files()}
    assert not {path: lines for path, lines in sizes.items() if lines > MAX_FILE_LINES}


def long_functions(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines, line {node.lineno})"
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]


def test_no_function_is_longer_than_sixty_lines() -> None:
    found = {str(p.relative_to(ROOT)): long_functions(p) for p in python_files()}
    assert not {path: names for path, names in found.items() if names}


def test_no_dead_code() -> None:
    """No function, method, class or import that nothing uses (vulture, over code and tests)."""
    result = subprocess.run(
        [
            bin_of("vulture"),
            *SOURCE_ROOTS,
            "--min-confidence=60",
            f"--ignore-decorators={REGISTERING_DECORATORS}",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    kinds = ("unused function", "unused method", "unused class", "unused import")
    dead = [
        line
        for line in result.stdout.splitlines()
        if not line.startswith("tests/") and any(kind in line for kind in kinds)
    ]
    assert not dead, "\n".join(dead)
