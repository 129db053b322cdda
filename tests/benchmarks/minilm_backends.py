"""all-MiniLM-L6-v2 side by side: the numpy forward pass it ran first (commit b05c1df), the float
ONNX Runtime graph that replaced it (commit 9dd5753) and today's 8-bit integer graph, on the same
SciFact abstracts (whole texts, windows included), in one process, alternating so all three meet
the same machine load. `--busy` keeps one core busy with another process meanwhile.

Run:  .venv/bin/python -m tests.benchmarks.minilm_backends [--docs 128] [--rounds 2] [--busy]
"""

import argparse
import importlib.util
import multiprocessing
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np

from shared.config import REPO_ROOT
from shared.providers.local import minilm
from tests.benchmarks.scifact import load

NUMPY_COMMIT = "b05c1df"  # the last commit whose MiniLM ran as a numpy forward pass
FLOAT_COMMIT = "9dd5753"  # the last commit whose ONNX graph was float
_MINILM = "shared/providers/local/minilm.py"
_GRAPH = "shared/providers/local/minilm_graph.py"


def module_at(commit: str, path: str, name: str, renames: dict[str, str]) -> ModuleType:
    """`path` as it was at `commit`, imported as `name`, its imports of `renames`' keys rewritten
    to their values (modules loaded the same way)."""
    source = subprocess.run(
        ["git", "show", f"{commit}:{path}"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for old, new in renames.items():
        source = source.replace(f"from {old} import", f"from {new} import")
    file = Path(tempfile.mkdtemp()) / f"{name}.py"
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def numpy_minilm() -> ModuleType:
    return module_at(NUMPY_COMMIT, _MINILM, "minilm_numpy", {})


def float_minilm() -> ModuleType:
    module_at(FLOAT_COMMIT, _GRAPH, "minilm_graph_float", {})
    graph = "shared.providers.local.minilm_graph"
    return module_at(FLOAT_COMMIT, _MINILM, "minilm_float", {graph: "minilm_graph_float"})


def docs_per_second(
    embed: Callable[[list[str]], np.ndarray], texts: list[str]
) -> tuple[float, np.ndarray]:
    started = time.perf_counter()
    vectors = np.asarray(embed(texts))
    return len(texts) / (time.perf_counter() - started), vectors


def _spin() -> None:
    while True:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=128)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--busy", action="store_true", help="another process spins on one core")
    args = parser.parse_args()
    corpus, _, _ = load()
    texts = list(corpus.values())[: args.docs]
    models = {
        "numpy": numpy_minilm()._network(),
        "float ONNX": float_minilm()._network(),
        "int8 ONNX": minilm._network(),
    }
    for model in models.values():
        model.embed(texts[:4])  # warmed up
    spinner = multiprocessing.Process(target=_spin, daemon=True) if args.busy else None
    if spinner:
        spinner.start()
    try:
        for round_ in range(1, args.rounds + 1):
            rates, vectors = {}, {}
            for name, model in models.items():
                rates[name], vectors[name] = docs_per_second(model.embed, texts)
            cosines = (vectors["int8 ONNX"] * vectors["float ONNX"]).sum(axis=1)
            print(
                f"round {round_}: "
                + ", ".join(f"{name} {rate:.1f} docs/s" for name, rate in rates.items())
                + f"; int8 / numpy {rates['int8 ONNX'] / rates['numpy']:.1f}x,"
                f" int8 / float {rates['int8 ONNX'] / rates['float ONNX']:.2f}x;"
                f" cosine int8 to float min {cosines.min():.4f} mean {cosines.mean():.4f}"
            )
    finally:
        if spinner:
            spinner.kill()


if __name__ == "__main__":
    main()
