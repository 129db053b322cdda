"""Extraction in a child process with a wall-clock and a memory limit: a file that needs too long
or too much memory fails on its own, while the extractor goes on serving every other file. The
child holds no secret and has no network (sandbox.py): a parser exploit gains no more."""

import asyncio
import contextlib
import ctypes
import logging
import math
import multiprocessing
import os
import resource
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from functools import lru_cache
from multiprocessing import forkserver
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext
from multiprocessing.process import BaseProcess
from typing import Any

from services.extractor import sandbox
from services.extractor.errors import ExtractionError, LimitExceeded
from services.extractor.extract import extract_text
from shared.config import ExtractionSettings

logger = logging.getLogger(__name__)

# The fork server imports the main module once (see _forkserver), and multiprocessing then runs
# it again in each child as __mp_main__, which runpy warns about. A main module only defines its
# functions, so in every file's log the warning would be noise; the filter is inherited from the
# fork server, which imports this module.
warnings.filterwarnings(
    "ignore", r".* found in sys\.modules after import of package", RuntimeWarning, "runpy"
)
# a child that has answered only has to exit; one that takes longer than this is killed
_EXIT_GRACE_SECONDS = 5.0
_WHAT_TO_DO = "split the file into smaller ones, or save its text as .txt, and upload again"

# what a child sends back: ("text", str), ("refused", ExtractionError), ("memory", None) or
# ("error", str); the parent adds ("timeout", None) when none came in time
Outcome = tuple[str, Any]
PR_SET_DUMPABLE = 4
_ENVIRONMENT_SWAP = threading.Lock()  # two first files at once must not save each other's swap


class ExtractionCrashed(RuntimeError):
    """The child died without an answer (killed by the system, a crash in a C parser) or hit an
    unexpected error: maybe not the file's fault, so the bus retries it before the file fails."""


@lru_cache(maxsize=1)
def _forkserver() -> ForkServerContext:
    """Each child forks from a small single-threaded server that imported the parsers once: it
    starts in milliseconds and inherits none of the service's threads (event loop, telemetry
    exporter), whose locks a child forked straight from the service could inherit held."""
    context = multiprocessing.get_context("forkserver")
    # multiprocessing re-runs the main module in every child (as __mp_main__); imported once in
    # the server, that costs each child a millisecond instead of the service's 0.5 s of imports
    main_spec = getattr(sys.modules["__main__"], "__spec__", None)
    main_module = [main_spec.name] if main_spec is not None else []
    context.set_forkserver_preload(["__main__", *main_module, __name__])
    with _allowed_environment_only():
        forkserver.ensure_running()
    _hide_own_environment()
    return context


@contextlib.contextmanager
def _allowed_environment_only() -> Iterator[None]:
    """The fork server is a new program: it starts with the environment of this moment, which
    for these milliseconds holds only sandbox.ALLOWED_NAMES. (Should it die, multiprocessing
    starts it again with the whole environment; each child still clears its os.environ.)"""
    with _ENVIRONMENT_SWAP:
        saved = dict(os.environ)
        os.environ.clear()
        os.environ.update(sandbox.allowed_environment(saved))
        try:
            yield
        finally:
            os.environ.clear()
            os.environ.update(saved)


def _hide_own_environment() -> None:
    """A child runs as this process's user, who may read /proc/<pid>/environ of any process of
    theirs that is dumpable: this one, the extractor, holds the secrets, so it is made not."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


async def extract_in_child(data: bytes, filename: str, limits: ExtractionSettings) -> str:
    """extract_text in a fresh child process, within the limits' time and memory."""
    return await asyncio.to_thread(_extract_in_child, data, filename, limits)


def _extract_in_child(data: bytes, filename: str, limits: ExtractionSettings) -> str:
    _announce_sandbox(limits.extract_timeout_seconds, limits.extract_memory_mb)
    return run_in_child(
        extract_text,
        (data, filename, limits),
        timeout_seconds=limits.extract_timeout_seconds,
        memory_mb=limits.extract_memory_mb,
    )


@lru_cache(maxsize=1)
def _announce_sandbox(timeout_seconds: float, memory_mb: int) -> None:
    """Log once, at the first file (the start-up check), what keeps a child from secrets and
    the network: it depends on the kernel, so a child is asked."""
    try:
        protections = run_in_child(
            describe_sandbox, (), timeout_seconds=timeout_seconds, memory_mb=memory_mb
        )
    except (ExtractionError, ExtractionCrashed):
        return  # the file's own extraction reports what is wrong
    if "namespace" in protections or "seccomp" in protections:
        logger.info("extraction children run with: %s", protections)
    else:
        logger.warning("extraction children have network access; they run with: %s", protections)


def describe_sandbox() -> str:
    """In a child: what sandbox.enter() put in place."""
    return ", ".join(sandbox.PROTECTIONS)


def run_in_child(
    target: Callable[..., str], args: tuple[Any, ...], *, timeout_seconds: float, memory_mb: int
) -> str:
    """target(*args) in a child process (blocks the calling thread). An ExtractionError of the
    target comes out as it is; too long or too much memory is LimitExceeded; a child that dies
    or fails unexpectedly is ExtractionCrashed."""
    receiver, sender = _forkserver().Pipe(duplex=False)
    child = _forkserver().Process(
        target=_child_main, args=(sender, target, args, timeout_seconds, memory_mb), daemon=True
    )
    child.start()  # returns once the child is forked: the time limit starts after that
    sender.close()  # the child holds the only writing end now, so its death reads as EOF
    outcome: Outcome = ("timeout", None)
    try:
        outcome = _wait_for_outcome(receiver, timeout_seconds)
    finally:
        receiver.close()
        _stop(child, answered=outcome[0] != "timeout")
    return _result(outcome, child.exitcode, timeout_seconds, memory_mb)


def _wait_for_outcome(receiver: Connection, timeout_seconds: float) -> Outcome:
    if not receiver.poll(timeout_seconds):
        return ("timeout", None)
    try:
        return receiver.recv()
    except EOFError:
        return ("died", None)


def _stop(child: BaseProcess, *, answered: bool) -> None:
    """Reap the child; kill it first if it is still working (or, having answered, won't exit)."""
    if answered:
        child.join(_EXIT_GRACE_SECONDS)
    if child.is_alive():
        child.kill()
    child.join()


def _result(outcome: Outcome, exitcode: int | None, timeout_seconds: float, memory_mb: int) -> str:
    """The text, or the error that tells the user (or the bus) what happened."""
    kind, value = outcome
    if kind == "text":
        return str(value)
    if kind == "refused":
        raise value
    if kind == "timeout" or exitcode == -signal.SIGXCPU:
        raise LimitExceeded(
            f"extracting the text took longer than {timeout_seconds:g} s, the limit for one file "
            f"(ARTISAN_EXTRACT_TIMEOUT_SECONDS); {_WHAT_TO_DO}"
        )
    if kind == "memory":
        raise LimitExceeded(
            f"reading the file needed more than {memory_mb:,} MB of memory, the limit for one "
            f"file (ARTISAN_EXTRACT_MEMORY_MB); {_WHAT_TO_DO}"
        )
    if kind == "error":
        raise ExtractionCrashed(f"reading the file failed unexpectedly: {value}")
    raise ExtractionCrashed(
        f"the process reading the file stopped without an answer ({_exit_reason(exitcode)}); "
        "check that the file opens in its own application, or save its text as .txt and upload "
        "that"
    )


def _exit_reason(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        return f"killed by {signal.Signals(-exitcode).name}"
    return f"exit status {exitcode}"


def _child_main(
    sender: Connection,
    target: Callable[..., str],
    args: tuple[Any, ...],
    timeout_seconds: float,
    memory_mb: int,
) -> None:
    """The child: leave secrets and network behind, set its limits, run the target, send one
    outcome."""
    sandbox.enter()
    _limit_resources(timeout_seconds, memory_mb)
    outcome: Outcome
    try:
        outcome = ("text", target(*args))
    except ExtractionError as error:
        outcome = ("refused", error)
    except MemoryError:
        outcome = ("memory", None)
    except Exception as error:  # a parser's bug: the parent decides whether to retry
        outcome = ("error", f"{type(error).__name__}: {error}")
    try:
        sender.send(outcome)
    except MemoryError:  # sending pickles a copy of the text, which may not fit
        sender.send(("memory", None))


def _limit_resources(timeout_seconds: float, memory_mb: int) -> None:
    # past the address-space limit an allocation fails with MemoryError instead of growing the
    # machine's memory use until the system kills something
    _lower(resource.RLIMIT_AS, memory_mb * 1024 * 1024)
    # the parent kills the child at the wall-clock limit; this CPU limit only ends a child whose
    # parent died first (CPU time of a single thread never runs ahead of the wall clock)
    _lower(resource.RLIMIT_CPU, math.ceil(timeout_seconds) + 1)


def _lower(kind: int, limit: int) -> None:
    _, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    # macOS refuses some limits; the wall-clock limit holds there all the same
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(kind, (limit, hard))
