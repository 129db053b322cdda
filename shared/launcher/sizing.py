"""How many processes of the services that run the local models `artisan up` starts, and how many
threads the embedding model (MiniLM in ONNX Runtime) uses in each: from the cores this process may
run on, unless told otherwise (`--chunkers`, `--embedders`, ARTISAN_EMBED_THREADS).

With local models the chunker does most of a small file's work (chunks, cuts and vectors in one
step) and the embedder does a large file's vectors. Measured on 2 cores, 1,000 SciFact abstracts
(tests/benchmarks/throughput.py, quiet machine, MiniLM's int8 graph): one chunker of one model
thread ready 29.2-29.7 docs/s, two chunkers of one thread each 35.7 (float graph, earlier: one
chunker of two threads 11.4, of one 7.3, two of one 12.1) — processes overlap their database and
bus round trips with the other's model work, threads cannot. So there is a chunker per core, each
with one model thread, and the embedders share all the cores among them: a large file's vectors
are the only model work then.
"""

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Sizing:
    cores: int
    chunkers: int
    embedders: int
    chunker_threads: int  # ONNX Runtime's threads in each chunker process
    embedder_threads: int  # and in each embedder process

    def describe(self) -> str:
        return (
            f"sized for {self.cores} core{_s(self.cores)}: {self.chunkers}× chunker"
            f" ({self.chunker_threads} model thread{_s(self.chunker_threads)} each),"
            f" {self.embedders}× embedder"
            f" ({self.embedder_threads} thread{_s(self.embedder_threads)} each)"
        )

    def service_env(self) -> dict[str, dict[str, str]]:
        """Each model service's ARTISAN_EMBED_THREADS."""
        return {
            "chunker": {"ARTISAN_EMBED_THREADS": str(self.chunker_threads)},
            "embedder": {"ARTISAN_EMBED_THREADS": str(self.embedder_threads)},
        }


def _s(count: int) -> str:
    return "s" if count > 1 else ""


def available_cpus() -> int:
    """The CPUs this process may run on (a container's cpuset or `taskset` gives fewer than the
    machine has)."""
    if hasattr(os, "sched_getaffinity"):  # Linux; macOS and Windows have no affinity call
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def size_for(
    cores: int,
    *,
    chunkers: int | None = None,
    embedders: int | None = None,
    embed_threads: int | None = None,
) -> Sizing:
    """The processes and threads for `cores`; what the caller sets is kept as it is."""
    embedders = embedders or max(1, cores // 4)
    shared_out = embed_threads or max(1, cores // embedders)
    return Sizing(cores, chunkers or cores, embedders, embed_threads or 1, shared_out)
