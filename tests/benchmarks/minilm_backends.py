"""all-MiniLM-L6-v2 side by side: the numpy forward pass it ran before (read from git, commit
b05c1df) against today's ONNX Runtime graph, on the same SciFact abstracts (whole texts, windows
included), in one process, alternating so both meet the same machine load.

Run:  .venv/bin/python -m tests.benchmarks.minilm_backends [--docs 128] [--rounds 2]
"""

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

import numpy as np

from shared.config import REPO_ROOT
from shared.providers.local import minilm
from tests.benchmarks.scifact import load

NUMPY_COMMIT = "b05c1df"  # the last commit whose MiniLM ran as a numpy forward pass


def numpy_minilm() -> ModuleType:
    """The numpy implementation as it was, imported under a name of its own."""
    source = subprocess.run(
        ["git", "show", f"{NUMPY_COMMIT}:shared/providers/local/minilm.py"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    path = Path(tempfile.mkdtemp()) / "minilm_numpy.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("minilm_numpy", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["minilm_numpy"] = module
    spec.loader.exec_module(module)
    return module


def docs_per_second(embed: object, texts: list[str]) -> tuple[float, np.ndarray]:
    started = time.perf_counter()
    vectors = embed(texts)  # type: ignore[operator]
    return len(texts) / (time.perf_counter() - started), vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    corpus, _, _ = load()
    texts = list(corpus.values())[: args.docs]
    old, new = numpy_minilm()._network(), minilm._network()
    old.embed(texts[:4]), new.embed(texts[:4])  # warmed up
    for round_ in range(1, args.rounds + 1):
        old_rate, old_vectors = docs_per_second(old.embed, texts)
        new_rate, new_vectors = docs_per_second(new.embed, texts)
        difference = float(np.abs(old_vectors - new_vectors).max())
        print(
            f"round {round_}: numpy {old_rate:.1f} docs/s, ONNX Runtime {new_rate:.1f} docs/s"
            f" ({new_rate / old_rate:.1f}x); vectors differ by at most {difference:.1e}"
        )


if __name__ == "__main__":
    main()
