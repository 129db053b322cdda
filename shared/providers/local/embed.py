"""Feature-hashing embeddings: stemmed words, word pairs and character trigrams, signed, L2-unit."""

import hashlib
from functools import lru_cache
from typing import Literal

import numpy as np

from shared.providers.cpu import run_sized
from shared.text.words import STOP_WORDS, stem, words

DEFAULT_DIMENSION = 1024
# relative weights of the feature kinds: words carry meaning, pairs add phrasing,
# trigrams only soften spelling variants and unknown inflections
_UNIGRAM_WEIGHT = 1.0
_BIGRAM_WEIGHT = 0.5
_TRIGRAM_WEIGHT = 0.1
_INPUT_TYPES = ("document", "query")
# per-kind salts keep a word, a pair and a trigram with equal hashes in different buckets
_BIGRAM_SALT = np.uint64(0x9E3779B97F4A7C15)
_TRIGRAM_SALT = np.uint64(0xD6E8FEB86659FD93)
_RAW_SALT = np.uint64(0xA0761D6478BD642F)
_PAIR_MULTIPLIER = np.uint64(0x100000001B3)
_SIGN_BIT = np.uint64(63)


# names the hashing scheme: change it whenever a change to this module changes the vectors
LOCAL_EMBED_MODEL = "artisan-hash-v1"


class LocalEmbedder:
    """Offline embedder: deterministic across processes and machines, no model weights."""

    def __init__(self, dimension: int = DEFAULT_DIMENSION) -> None:
        if dimension < 2:
            raise ValueError("an embedding needs at least 2 dimensions")
        self.dimension = dimension
        self.model = f"{LOCAL_EMBED_MODEL}-{dimension}"

    async def embed(
        self, texts: list[str], input_type: Literal["document", "query"] = "document"
    ) -> list[list[float]]:
        if input_type not in _INPUT_TYPES:
            raise ValueError(f"input_type must be one of {_INPUT_TYPES}, not {input_type!r}")
        size = sum(map(len, texts))
        return (await run_sized(size, embed_texts, texts, self.dimension)).tolist()


def embed_texts(texts: list[str], dimension: int = DEFAULT_DIMENSION) -> np.ndarray:
    """One L2-normalised row per text; documents and queries share one space."""
    matrix = np.zeros((len(texts), dimension), dtype=np.float64)
    for row, text in enumerate(texts):
        matrix[row] = embed_text(text, dimension)
    return matrix


def embed_text(text: str, dimension: int = DEFAULT_DIMENSION) -> np.ndarray:
    """A unit vector for one text; never the zero vector (cosine on it would be NaN)."""
    tokens = [token for token in words(text) if token not in STOP_WORDS]
    if tokens:
        hashes, weights = _word_features(tokens)
    else:
        # stop words or symbols only: fall back to the raw characters so the vector is non-zero
        hashes, weights = _counted(_trigram_hashes(f" {text.strip().lower()} ") ^ _RAW_SALT, 1.0)
    signs = np.where((hashes >> _SIGN_BIT) & np.uint64(1), 1.0, -1.0)
    buckets = (hashes % np.uint64(dimension)).astype(np.intp)
    vector = np.bincount(buckets, weights=signs * weights, minlength=dimension)
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:  # opposite-signed features cancelled out exactly: rare, but never NaN
        vector[int(_word_hash(text) % dimension)], norm = 1.0, 1.0
    return vector / norm


def _word_features(tokens: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Hashes and weights of stemmed words, stemmed word pairs and trigrams of the words."""
    stems = np.fromiter((_word_hash(stem(token)) for token in tokens), np.uint64, len(tokens))
    unigram = _counted(stems, _UNIGRAM_WEIGHT)
    pairs = _mix(stems[:-1] * _PAIR_MULTIPLIER + stems[1:] + _BIGRAM_SALT)
    bigram = _counted(pairs, _BIGRAM_WEIGHT)
    trigram = _counted(
        _trigram_hashes(" " + " ".join(tokens) + " ") ^ _TRIGRAM_SALT, _TRIGRAM_WEIGHT
    )
    return (
        np.concatenate([unigram[0], bigram[0], trigram[0]]),
        np.concatenate([unigram[1], bigram[1], trigram[1]]),
    )


def _counted(hashes: np.ndarray, weight: float) -> tuple[np.ndarray, np.ndarray]:
    """Distinct features with sublinear term-frequency weights: weight * (1 + ln count)."""
    distinct, counts = np.unique(hashes, return_counts=True)
    return distinct, weight * (1.0 + np.log(counts))


def _trigram_hashes(padded: str) -> np.ndarray:
    """Hashes of the character trigrams inside each space-delimited word (spaces mark edges)."""
    codes = np.frombuffer(padded.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    if len(codes) < 3:
        codes = np.pad(codes, (0, 3 - len(codes)))
    first, middle, last = codes[:-2], codes[1:-1], codes[2:]
    inside_a_word = middle != np.uint64(ord(" "))  # a space in the middle joins two words
    combined = (first << np.uint64(42)) ^ (middle << np.uint64(21)) ^ last
    return _mix(combined[inside_a_word])


def _mix(values: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser: spreads structured integers evenly over all 64 bits."""
    values = values ^ (values >> np.uint64(30))
    values = values * np.uint64(0xBF58476D1CE4E5B9)
    values = values ^ (values >> np.uint64(27))
    values = values * np.uint64(0x94D049BB133111EB)
    return values ^ (values >> np.uint64(31))


@lru_cache(maxsize=200_000)
def _word_hash(word: str) -> int:
    """A stable 64-bit hash (blake2b: unlike hash(), not salted per process)."""
    return int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
