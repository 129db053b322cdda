"""Local embedder: stable unit vectors; related texts clearly closer than unrelated ones."""

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.providers.local import LocalEmbedder
from shared.providers.local.embed import embed_text, embed_texts
from tests.fixtures.transcripts import interview_transcript


def _cosine(first: str, second: str) -> float:
    return float(embed_text(first) @ embed_text(second))


def test_vectors_are_unit_length_with_the_configured_dimension() -> None:
    matrix = embed_texts(["pricing tiers for small teams", "churn risk", "x"], dimension=256)
    assert matrix.shape == (3, 256)
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0)


@pytest.mark.parametrize("text", ["", "   ", "the of and to", "!!!", "\n\n", "🙂"])
def test_empty_or_stop_word_texts_still_get_a_unit_vector(text: str) -> None:
    vector = embed_text(text)
    assert np.isfinite(vector).all()
    assert math.isclose(float(np.linalg.norm(vector)), 1.0)


def test_related_texts_are_closer_than_unrelated_ones() -> None:
    query = "What did the expert recommend about pricing?"
    arc = "EXPERT 2: on pricing tiers — recommends usage-based prices; risk of churn"
    unrelated = "Server logged a disk failure at midnight in the Frankfurt data center"
    assert _cosine(query, arc) > 0.3
    assert _cosine(query, arc) > _cosine(query, unrelated) + 0.25
    assert _cosine(arc, unrelated) < 0.1


def test_inflections_share_features() -> None:
    assert _cosine("pricing", "prices") > 0.7
    assert _cosine("we decided to hire engineers", "decide on hiring an engineer") > 0.5
    assert _cosine("pricing", "hiring") < 0.3


def test_ranking_finds_the_matching_chunk() -> None:
    chunks = [
        "We moved to usage tiers because per-seat pricing annoyed small teams.",
        "Hiring plan: two senior engineers before any engineering manager.",
        "Berlin office opens in March; the team will focus on DACH enterprise deals.",
        "Quarterly revenue rose 12% to $4.2M while gross margin held at 71%.",
    ]
    queries = {
        "why did we change the pricing model": 0,
        "which engineers are we hiring first": 1,
        "when does the office in Berlin open": 2,
        "what was the revenue growth last quarter": 3,
    }
    matrix = embed_texts(chunks)
    for query, expected in queries.items():
        scores = matrix @ embed_text(query)
        assert int(np.argmax(scores)) == expected, query


def test_embeddings_are_stable_across_processes() -> None:
    """Python's hash() is salted per process; the embedder must not depend on it."""
    code = (
        "from shared.providers.local.embed import embed_text;"
        "v = embed_text('pricing tiers for small teams');"
        "print(repr([round(float(x), 12) for x in v[v != 0][:8]]))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            cwd=Path(__file__).resolve().parents[3],
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1
    vector = embed_text("pricing tiers for small teams")
    assert outputs.pop().strip() == repr([round(float(x), 12) for x in vector[vector != 0][:8]])


def test_batch_of_200_chunks_gives_one_unit_vector_each() -> None:
    words = interview_transcript().split()
    texts = [" ".join(words[i * 40 + 3 : i * 40 + 303]) for i in range(200)]
    matrix = embed_texts(texts)
    assert matrix.shape == (200, 1024)
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0)


@given(st.text(max_size=300))
@settings(max_examples=200, deadline=None)
def test_any_text_gives_a_finite_unit_vector(text: str) -> None:
    vector = embed_text(text, dimension=64)
    assert np.isfinite(vector).all()
    assert math.isclose(float(np.linalg.norm(vector)), 1.0, rel_tol=1e-9)


async def test_local_embedder_implements_the_interface() -> None:
    embedder = LocalEmbedder(dimension=128)
    assert embedder.dimension == 128
    documents = await embedder.embed(["pricing tiers", "hiring plan"])
    queries = await embedder.embed(["pricing tiers"], input_type="query")
    assert len(documents) == 2 and all(len(row) == 128 for row in documents)
    assert all(isinstance(value, float) for value in documents[0])
    assert queries[0] == documents[0]
    with pytest.raises(ValueError):
        await embedder.embed(["x"], input_type="passage")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        LocalEmbedder(dimension=1)
