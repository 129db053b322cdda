"""Which chunks of a new version are reused from the live one."""

import uuid

from services.chunker.reuse import known_types, match_unchanged
from shared.db.chunks import NewChunk
from shared.progress import stage_message


def planned(*texts: str, chunk_type: str = "strategic") -> list[NewChunk]:
    chunks, start = [], 0
    for index, text in enumerate(texts):
        chunks.append(NewChunk(index, chunk_type, "t", start, start + len(text), 1, 1, text))
        start += len(text)
    return chunks


def live(*texts: str, chunk_type: str = "strategic") -> list[dict]:
    return [
        {"id": uuid.UUID(int=i + 1), "text": t, "chunk_type": chunk_type, "title": "t"}
        for i, t in enumerate(texts)
    ]


def test_unchanged_chunks_keep_their_ids_even_when_they_move() -> None:
    reused = match_unchanged(planned("new intro", "a", "b changed", "c"), live("a", "b", "c"))
    assert reused == {1: uuid.UUID(int=1), 3: uuid.UUID(int=3)}


def test_a_passage_twice_is_reused_only_as_often_as_it_was_there() -> None:
    reused = match_unchanged(planned("same", "same", "same"), live("same", "other", "same"))
    assert reused == {0: uuid.UUID(int=1), 1: uuid.UUID(int=3)}


def test_a_chunk_whose_type_or_title_changed_is_processed_again() -> None:
    assert match_unchanged(planned("a", chunk_type="factual"), live("a")) == {}
    moved = [NewChunk(0, "strategic", "other title", 0, 1, 1, 1, "a")]
    assert match_unchanged(moved, live("a")) == {}


def test_known_types_come_from_the_live_chunks() -> None:
    assert known_types(live("a", chunk_type="factual")) == {"a": "factual"}


def test_progress_says_how_many_chunks_were_reused() -> None:
    message = stage_message("processing", 23, 24, None, reused=23)
    assert message == "Compressing chunks 23/24 (reused 23 of 24 unchanged)"
    assert stage_message("processing", 1, 2, None) == "Compressing chunks 1/2"
