"""The web client's modules import one another without a circle: in a circle, which module runs
first depends on which one the page happened to load first, and a view reads another's exports
before they exist. A module that must tell one that imports it takes a callback (chat.js's
onAnswered, wired in main.js) or shares a small module both import (current_conversation.js).
import-linter checks the Python side (pyproject.toml); this is the same rule for JavaScript."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# `import { a } from "./x.js";`, `import x from "../y.mjs";`, `export { b } from "./z.js";`,
# `import "./side-effect.js";` — over several lines too
IMPORT = re.compile(
    r"""^\s*(?:import|export)\b[^;'"]*?(?:\bfrom\s*)?["'](?P<path>\.{1,2}/[^"']+)["']""",
    re.MULTILINE,
)


def module_graph(folder: Path) -> dict[str, set[str]]:
    """Every module under `folder` (by its path there) and the modules it imports."""
    graph: dict[str, set[str]] = {}
    for script in sorted(folder.rglob("*.js")):
        imported = {
            (script.parent / match["path"]).resolve()
            for match in IMPORT.finditer(script.read_text())
        }
        graph[_name(script, folder)] = {_name(path, folder) for path in imported}
    return graph


def _name(path: Path, folder: Path) -> str:
    resolved = path.resolve()
    return (
        resolved.relative_to(folder.resolve()).as_posix()
        if resolved.is_relative_to(folder.resolve())
        else resolved.name
    )


def circles(graph: dict[str, set[str]]) -> list[str]:
    """A circle through each group of modules that import one another, as "a → b → a"."""
    found: list[str] = []
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> None:
        path.append(module)
        for imported in sorted(graph.get(module, ())):
            if imported in path:
                found.append(" → ".join([*path[path.index(imported) :], imported]))
            elif imported not in done:
                visit(imported)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        if module not in done:
            visit(module)
    return found


def client_folders() -> list[Path]:
    return sorted({script.parent for script in (ROOT / "services").rglob("static/js/*.js")})


def test_the_web_client_imports_in_no_circle() -> None:
    folders = client_folders()
    assert folders, "no web client modules found under services/*/static/js"
    for folder in folders:
        graph = module_graph(folder)
        assert graph.get("main.js"), f"{folder}: main.js imports nothing? the parser missed it"
        assert not circles(graph), f"{folder}: modules import each other in a circle"


def test_a_circle_is_found_and_named() -> None:
    graph = {"a.js": {"b.js"}, "b.js": {"c.js", "ui.js"}, "c.js": {"a.js"}, "ui.js": set()}
    assert circles(graph) == ["a.js → b.js → c.js → a.js"]
    assert circles({"ui.js": set(), "main.js": {"ui.js"}}) == []


def test_every_form_of_import_is_read(tmp_path: Path) -> None:
    (tmp_path / "main.js").write_text(
        'import { a,\n  b } from "./a.js";\nimport "./b.js";\nexport { c } from "./c.js";\n'
        'import DOMPurify from "../vendor/purify.es.mjs";\nconst x = "import y from ./z.js";\n'
    )
    assert module_graph(tmp_path) == {"main.js": {"a.js", "b.js", "c.js", "purify.es.mjs"}}
