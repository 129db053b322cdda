"""Every dependency of every gateway route is a coroutine function: FastAPI runs a plain `def`
dependency in its thread pool, a thread hop per dependency per request, whose hand-offs of the
GIL with the event loop delayed SSE progress events while uploads arrived (issue 15)."""

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, APIRouter

import services.gateway


def route_modules() -> Iterator[Any]:
    # routers live in the feature packages (conversations/router.py, ...) and in health.py, web.py
    for module in pkgutil.walk_packages(services.gateway.__path__, "services.gateway."):
        yield importlib.import_module(module.name)


def dependencies(dependant: Dependant) -> Iterator[Callable[..., Any]]:
    for sub in dependant.dependencies:
        if sub.call is not None:
            yield sub.call
        yield from dependencies(sub)


def runs_on_the_event_loop(call: Callable[..., Any]) -> bool:
    function = call if inspect.isroutine(call) else type(call).__call__
    return inspect.iscoroutinefunction(function)


def test_no_route_dependency_runs_in_the_thread_pool() -> None:
    routes = [
        route
        for module in route_modules()
        if isinstance(getattr(module, "router", None), APIRouter)
        for route in module.router.routes
        if isinstance(route, APIRoute)
    ]
    assert len(routes) > 40  # every route module was found
    threaded = {
        f"{call.__module__}.{call.__qualname__} ({route.path})"
        for route in routes
        for call in dependencies(route.dependant)
        if not runs_on_the_event_loop(call)
    }
    assert not threaded, sorted(threaded)
