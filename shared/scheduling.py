"""How a service process asks for the CPU: ingestion below the interactive paths, and no
collector pauses over what it loaded at start.

With eight uploads in flight the two cores are busy, and every progress event waits for CPU at
each process it passes (the worker that committed it, NATS, the gateway). Measured with the
ingestion benchmark: at the same priority for all, an event reached its SSE client 43-69 ms
after its commit at the 99th percentile; with the ingestion workers ten nice steps down, the
gateway, chat, NATS and PostgreSQL take the CPU first and a worker's own event loop comes before
its model work (shared/providers/cpu.py): 19-27 ms. Throughput is the same within noise: the
workers still get every cycle nobody interactive needs.
"""

import gc
import logging
import os
from pathlib import Path

# how far below the gateway, chat, context, NATS and PostgreSQL the ingestion workers run
BACKGROUND_NICE_STEPS = 10
# where the kernel groups processes by session ("autogroup", on in most distributions' kernels)
AUTOGROUP = "/proc/{pid}/autogroup"
MAX_NICE = 19
logger = logging.getLogger(__name__)


def run_in_background(steps: int = BACKGROUND_NICE_STEPS) -> None:
    """Lower this process's CPU priority by `steps`, where the kernel shares the CPU between
    sessions first ("autogroup"): there every service and every PostgreSQL backend leads a
    session of its own, and a thread's nice value orders it only among its session's threads.
    Lowering needs no privilege. Without autogroup, nothing to do: the model thread's own nice
    value (shared/providers/cpu.py) already puts the heavy work below everyone's event loop.

    Only a process that leads its session lowers it (`artisan up` starts each service so): one
    started from a shell would lower the whole terminal session with it."""
    if os.getsid(0) != os.getpid():
        return
    try:
        nice = autogroup_nice()
        if nice is not None:
            Path(AUTOGROUP.format(pid="self")).write_text(str(min(MAX_NICE, nice + steps)))
    except (OSError, ValueError):
        logger.debug("no autogroup priority to lower", exc_info=True)


def autogroup_nice(pid: int | str = "self") -> int | None:
    """The nice value of a process's session group ("/autogroup-42 nice 10"); None for a process
    in the kernel's root group (its session never left init's, as under some CI runners and
    container runtimes): the kernel prints nothing for it, and there is no group to lower."""
    shown = Path(AUTOGROUP.format(pid=pid)).read_text()
    return int(shown.split("nice")[1]) if shown else None


def freeze_startup_heap() -> None:
    """Leave what start-up loaded (modules, models, settings) out of every later collection. A
    worker's full collection walked it all: 135-176 ms in which nothing of the service ran, not
    its progress events, not its heartbeats."""
    gc.collect()
    gc.freeze()
