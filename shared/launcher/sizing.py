"""How many processes of the services that run the local models `artisan up` starts, and how many
threads the embedding model (MiniLM in ONNX Runtime) uses in each: from the cores this process may
run on, unless told otherwise (`--chunkers`, `--embedders`, ARTISAN_EMBED_THREADS).

With local models the chunker does most of a small file's work (chunks, cuts and vectors in one
step) and the embedder does a large file's vectors; both run MiniLM. Each process's model threads
plus the others' must not outnumber the cores: two processes that each spread one forward pass
over every core spend their time waiting for each other (issue 30 measured a ratio of 0.38 to the
floor so). So the cores are shared out: about half of them chunk, a quarter embed, and each of
those processes' model gets the cores divided among them.
"""

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Sizing:
    cores: int
    chunkers: int
    embedders: int
    embed_threads: int  # ONNX Runtime's threads per process

    def describe(self) -> str:
        return (
            f"sized for {self.cores} core{'s' if self.cores > 1 else ''}: {self.chunkers}×"
            f" chunker, {self.embedders}× embedder, {self.embed_threads} embedding"
            f" thread{'s' if self.embed_threads > 1 else ''} each"
        )


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
    chunkers = chunkers or max(1, cores // 2)
    embedders = embedders or max(1, cores // 4)
    threads = embed_threads or max(1, cores // (chunkers + embedders))
    return Sizing(cores, chunkers, embedders, threads)
