"""Retrieval's pieces that need no database: when a question is embedded (and for whom), and how
a ranked chunk reads as a hit."""

import uuid

import pytest

from services.context import retrieval
from shared.usage import WorkContext, current_work

USER = uuid.uuid4()


class RecordingEmbedder:
    """Stands in for the registry's embedder: remembers whom each call served."""

    def __init__(self) -> None:
        self.served: list[tuple[list[str], str, WorkContext | None]] = []

    async def embed(self, texts: list[str], input_type: str) -> list[list[float]]:
        self.served.append((texts, input_type, current_work.get()))
        return [[0.5, 0.5] for _ in texts]


@pytest.fixture
def embedder(monkeypatch: pytest.MonkeyPatch) -> RecordingEmbedder:
    stand_in = RecordingEmbedder()
    monkeypatch.setattr(retrieval.registry, "embedder", lambda: stand_in)
    return stand_in


async def test_a_question_is_embedded_as_a_query_on_the_askers_account(
    embedder: RecordingEmbedder,
) -> None:
    assert await retrieval.question_vector(USER, "pricing tiers?", 0.5) == [0.5, 0.5]
    assert embedder.served == [(["pricing tiers?"], "query", WorkContext(user_id=USER))]
    assert current_work.get() is None  # the account is the question's only


async def test_at_vector_weight_zero_no_model_is_called(embedder: RecordingEmbedder) -> None:
    assert await retrieval.question_vector(USER, "pricing tiers?", 0.0) is None
    assert embedder.served == []


def test_a_ranked_chunk_reads_as_a_hit_quoting_the_question() -> None:
    text = "Intro. " * 60 + "We will hire two backend engineers in Lisbon before Q3."
    row = {
        "file_id": uuid.uuid4(),
        "filename": "hiring.md",
        "chunk_id": uuid.uuid4(),
        "title": "Hiring",
        "char_start": 10,
        "char_end": 10 + len(text),
        "line_start": 2,
        "line_end": 4,
        "text": text,
        "score": 0.0325,
    }
    hit = retrieval.search_hit(2, row, "engineers in Lisbon")
    assert (hit.ref, hit.file_id, hit.chunk_id) == (2, str(row["file_id"]), str(row["chunk_id"]))
    assert (hit.char_start, hit.line_end, hit.score) == (10, 4, 0.0325)
    assert hit.snippet in text and "Lisbon" in hit.snippet
