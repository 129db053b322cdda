"""A check that a text function takes time linear in its input: one hostile message or file
cannot stall a service."""

import time
from collections.abc import Callable


def _best_seconds(run: Callable[[str], object], text: str) -> float:
    """Best of three runs, so a busy machine does not make linear code look quadratic."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        run(text)
        best = min(best, time.perf_counter() - started)
    return best


def assert_linear(run: Callable[[str], object], make: Callable[[int], str], size: int) -> None:
    """Doubling the input at most triples the time (quadratic code quadruples it)."""
    small = _best_seconds(run, make(size))
    large = _best_seconds(run, make(2 * size))
    assert large < 1.0, f"{large:.2f}s for {len(make(2 * size))} characters"
    # the slack keeps timer noise on millisecond runs from failing linear code
    assert large < 3 * small + 0.05, f"{small:.3f}s, then {large:.3f}s when doubled"


def assert_fast(run: Callable[[str], object], text: str, seconds: float) -> None:
    took = _best_seconds(run, text)
    assert took < seconds, f"{took:.2f}s for {len(text)} characters"
