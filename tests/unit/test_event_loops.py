"""No nested event loops: a coroutine never calls, directly or through plain functions, one that
starts an event loop of its own (`asyncio.run`). That is the shape of the `artisan users` crash
(issue 27): `_with_database` (a coroutine) called `start_infra`, which called `asyncio.run`.

Calls are matched by the called function's name across the code (`x.start_infra(...)` and
`start_infra(...)` alike), which can only over-report: a coroutine that calls a same-named plain
function elsewhere would be flagged too, and renaming one of them is the fix."""

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCT_ROOTS = ("shared", "services")


TASK_MAKERS = {"create_task", "gather", "wait_for", "shield", "ensure_future"}


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """The nodes of `function`'s own body, not those of functions defined inside it."""
    nodes, stack = [], list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            nodes.append(node)
            stack.extend(ast.iter_child_nodes(node))
    return nodes


def _call_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        prefix = call.func.value
        asyncio_call = isinstance(prefix, ast.Name) and prefix.id == "asyncio"
        return f"asyncio.{call.func.attr}" if asyncio_call else call.func.attr
    return None


def _coroutine_calls(nodes: list[ast.AST]) -> set[ast.AST]:
    """Calls that make coroutines: awaited, or handed to a task."""
    awaited = {node.value for node in nodes if isinstance(node, ast.Await)}
    tasks = [
        node
        for node in nodes
        if isinstance(node, ast.Call)
        and str(_call_name(node)).removeprefix("asyncio.") in TASK_MAKERS
    ]
    return awaited | {arg for task in tasks for arg in task.args}


def _called_names(function: ast.AST) -> set[str]:
    """Plain calls in `function`'s own body: coroutines are left out, since a coroutine call
    starts no loop whatever plain function shares its name."""
    nodes = _own_nodes(function)
    coroutines = _coroutine_calls(nodes)
    return {
        name
        for node in nodes
        if isinstance(node, ast.Call) and node not in coroutines
        if (name := _call_name(node))
    }


def _functions() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Plain functions and coroutines by name: what each calls, over every definition of it."""
    plain: dict[str, set[str]] = defaultdict(set)
    coroutines: dict[str, set[str]] = defaultdict(set)
    for root in PRODUCT_ROOTS:
        for path in (ROOT / root).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.AsyncFunctionDef):
                    coroutines[f"{path.relative_to(ROOT)}:{node.name}"] |= _called_names(node)
                elif isinstance(node, ast.FunctionDef):
                    plain[node.name] |= _called_names(node)
    return plain, coroutines


def _loop_starters(plain: dict[str, set[str]]) -> set[str]:
    """Plain functions that start an event loop, themselves or through other plain functions."""
    starters = {name for name, calls in plain.items() if "asyncio.run" in calls}
    while grown := {name for name, calls in plain.items() if calls & starters} - starters:
        starters |= grown
    return starters


def test_no_coroutine_starts_an_event_loop_inside_its_own() -> None:
    plain, coroutines = _functions()
    starters = _loop_starters(plain) | {"asyncio.run"}
    nested = {
        coroutine: sorted(calls & starters)
        for coroutine, calls in coroutines.items()
        if calls & starters
    }
    assert not nested, f"coroutines that would start a second event loop: {nested}"


def test_the_check_finds_the_shape_of_the_users_crash() -> None:
    """The check itself, on the code of issue 27: a coroutine -> a plain function -> asyncio.run."""
    plain = {
        "_database_url": {"start_infra", "infra_settings"},
        "start_infra": {"asyncio.run", "start_postgres"},
        "start_postgres": {"get_server"},
    }
    assert _loop_starters(plain) == {"_database_url", "start_infra"}
