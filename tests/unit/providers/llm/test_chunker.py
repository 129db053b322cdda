"""LLM chunking (seed 000): one pass under 15k, concurrent 20k windows above, full coverage."""

import json
import re

import pytest

from shared.errors import ModelOutputError
from shared.prompts import load_prompt
from shared.providers.llm import LLMChunker
from shared.text.spans import validate_spans
from tests.fakes.llm_responder import (
    ResponderChat,
    malformed_then,
    parse_variables,
    realistic_responder,
    scripted_responder,
)
from tests.fixtures.transcripts import interview_transcript, turn_offsets

SHORT = interview_transcript(total_chars=9_000, turns=4)
LONG = interview_transcript()


def _variables(call_user: str, prompt: str) -> dict[str, str]:
    return parse_variables(load_prompt(prompt), call_user)


async def test_a_short_text_is_one_1a_then_one_1b_over_the_whole_text() -> None:
    chat = ResponderChat(realistic_responder)
    spans = await LLMChunker(chat).chunk(SHORT)
    assert chat.prompts() == ["chunk_1a", "chunk_1b"]
    assert {call.role for call in chat.calls} == {"chunk"}
    first = _variables(chat.calls[0].user, "chunk_1a")
    assert first["text"] == SHORT and first["char_count"] == str(len(SHORT))
    assert first["context_note"] == "This is the complete document."
    validate_spans(SHORT, spans)
    assert [span.start for span in spans] == turn_offsets(SHORT)


async def test_1b_sees_the_same_text_and_1a_s_chunks() -> None:
    chat = ResponderChat(realistic_responder)
    await LLMChunker(chat).chunk(SHORT)
    refine = _variables(chat.calls[1].user, "chunk_1b")
    assert refine["text"] == SHORT
    proposed = json.loads(refine["chunks_json"])["chunks"]
    assert [chunk["start"] for chunk in proposed] == turn_offsets(SHORT)
    assert all(chunk["title"] and chunk["summary"] for chunk in proposed)


async def test_the_65k_transcript_chunks_in_four_concurrent_windows_at_speaker_turns() -> None:
    assert len(LONG) > 60_000
    chat = ResponderChat(realistic_responder, delay=0.05)
    spans = await LLMChunker(chat).chunk(LONG)
    assert sorted(chat.prompts()) == ["chunk_1a"] * 4 + ["chunk_1b"] * 4
    assert chat.max_in_flight["chunk_1a"] > 1  # windows run concurrently, not one by one
    windows = [
        _variables(call.user, "chunk_1a") for call in chat.calls if call.prompt == "chunk_1a"
    ]
    assert sorted(LONG.index(window["text"]) for window in windows) == [0, 17_000, 34_000, 51_000]
    assert all(int(window["char_count"]) == len(window["text"]) for window in windows)
    validate_spans(LONG, spans)  # in order, contiguous, 100% coverage
    turns = set(turn_offsets(LONG))
    assert all(span.start in turns for span in spans)
    assert len(spans) >= 20 and all(span.title for span in spans)


async def test_each_window_runs_1b_after_its_own_1a() -> None:
    chat = ResponderChat(realistic_responder, delay=0.01)
    await LLMChunker(chat).chunk(LONG)
    for index, call in enumerate(chat.calls):
        if call.prompt == "chunk_1b":
            text = _variables(call.user, "chunk_1b")["text"]
            earlier = [
                _variables(c.user, "chunk_1a")["text"]
                for c in chat.calls[:index]
                if c.prompt == "chunk_1a"
            ]
            assert text in earlier


_GARBAGE = [
    {"chunks": []},
    {"chunks": [{"start": -500, "end": 10**9, "title": "everything"}]},
    {"chunks": [{"start": 9000, "end": 100}, {"start": 50, "end": 60}, {"start": 50, "end": 60}]},
    {"chunks": [{"start": 5, "end": 5}, {"start": 3000, "end": 2000, "title": None}]},
    {"chunks": [{"start": 1234.7, "end": "4321", "title": "floats and strings"}]},
]


@pytest.mark.parametrize("answer", _GARBAGE)
@pytest.mark.parametrize("text", [SHORT, LONG], ids=["short", "long"])
async def test_garbage_offsets_still_cover_the_text(answer: dict, text: str) -> None:
    chat = ResponderChat(scripted_responder({"chunk_1a": answer, "chunk_1b": answer}))
    spans = await LLMChunker(chat).chunk(text)
    validate_spans(text, spans)
    assert "".join(text[span.start : span.end] for span in spans) == text


async def test_a_model_that_stops_early_leaves_no_gap() -> None:
    def first_fifth(variables: dict[str, str]) -> dict:
        return {"chunks": [{"start": 0, "end": int(variables["char_count"]) // 5, "title": "t"}]}

    chat = ResponderChat(scripted_responder({"chunk_1a": first_fifth, "chunk_1b": {"chunks": []}}))
    spans = await LLMChunker(chat).chunk(LONG)
    validate_spans(LONG, spans)


async def test_a_failed_1b_keeps_1a_s_chunks() -> None:
    def invalid_1b(variables: dict[str, str]) -> dict:
        return {"not chunks": True}

    chat = ResponderChat(scripted_responder({"chunk_1b": invalid_1b}))
    spans = await LLMChunker(chat).chunk(SHORT)
    assert [span.start for span in spans] == turn_offsets(SHORT)


async def test_a_failed_1a_fails_the_chunking_clearly() -> None:
    chat = ResponderChat(malformed_then(realistic_responder, failures=1))
    with pytest.raises(ModelOutputError, match="chunk_1a"):
        await LLMChunker(chat).chunk(SHORT)


async def test_an_empty_text_needs_no_model() -> None:
    chat = ResponderChat(realistic_responder)
    assert await LLMChunker(chat).chunk("") == []
    assert chat.calls == []


async def test_titles_and_summaries_stay_with_their_chunks() -> None:
    text = "Intro.\n\n" + "BOSS: pricing? " * 20 + "\n\nEXPERT 1: tiers. " * 20
    cut = text.index("EXPERT 1")

    def answer(variables: dict[str, str]) -> dict:
        return {
            "chunks": [
                {"start": 0, "end": cut - 7, "title": "Pricing question", "summary": "Boss asks."},
                {"start": cut - 7, "end": len(text), "title": "Tiers", "summary": "Expert."},
            ]
        }

    chat = ResponderChat(scripted_responder({"chunk_1a": answer, "chunk_1b": answer}))
    spans = await LLMChunker(chat).chunk(text)
    assert [(s.start, s.title, s.summary) for s in spans] == [
        (0, "Pricing question", "Boss asks."),
        (cut, "Tiers", "Expert."),
    ]
    assert re.match(r"EXPERT 1", text[spans[1].start :])
