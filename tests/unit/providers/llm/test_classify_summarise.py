"""Classification and summaries through a chat model: prompts filled, answers mapped."""

import pytest

from shared.domain import ChunkType, FileType
from shared.errors import ModelOutputError
from shared.prompts import load_prompt
from shared.providers.llm import LLMClassifier, LLMSummariser
from tests.fakes.llm_responder import (
    ResponderChat,
    parse_variables,
    realistic_responder,
    scripted_responder,
)
from tests.fixtures.transcripts import interview_transcript

TRANSCRIPT = interview_transcript(total_chars=9_000, turns=4)
REPORT = "Revenue grew 12% to $4.2B in 2024. Q3 margin was 31.5%. " * 20


@pytest.mark.parametrize(
    ("answer", "expected"),
    [("strategic", FileType.STRATEGIC), (" Mixed", FileType.MIXED), ("FACTUAL", FileType.FACTUAL)],
)
async def test_file_types_map_leniently(answer: str, expected: FileType) -> None:
    chat = ResponderChat(scripted_responder({"classify": {"file_type": answer, "reason": "r"}}))
    assert await LLMClassifier(chat).classify_file("text") == expected
    assert chat.calls[0].role == "classify"


async def test_an_unknown_file_type_is_a_model_output_error() -> None:
    chat = ResponderChat(scripted_responder({"classify": {"file_type": "poetry"}}))
    with pytest.raises(ModelOutputError):
        await LLMClassifier(chat).classify_file("text")


async def test_realistic_classification_of_files_and_chunks() -> None:
    classifier = LLMClassifier(ResponderChat(realistic_responder))
    assert await classifier.classify_file(TRANSCRIPT) == FileType.STRATEGIC
    assert await classifier.classify_chunk(TRANSCRIPT) == ChunkType.STRATEGIC
    assert await classifier.classify_chunk(REPORT) == ChunkType.FACTUAL


async def test_a_long_file_is_classified_from_a_marked_sample() -> None:
    chat = ResponderChat(realistic_responder)
    text = interview_transcript(total_chars=200_000, turns=60)
    await LLMClassifier(chat, max_chars=24_000).classify_file(text)
    shown = parse_variables(load_prompt("classify"), chat.calls[0].user)["text"]
    assert len(shown) < 24_200 and "characters omitted" in shown
    assert shown.startswith(text[:1000]) and shown.endswith(text[-1000:])


async def test_section_and_file_summaries() -> None:
    chat = ResponderChat(realistic_responder)
    summariser = LLMSummariser(chat)
    section = await summariser.summarise_section(TRANSCRIPT, "Pricing tiers")
    assert section.strip()
    summary = await summariser.summarise_file(
        "acd179.md", [("Pricing tiers", section), ("EXPERT 1: on hiring", "Hire seniors first.")]
    )
    assert summary.strip()
    assert [(c.role, c.prompt) for c in chat.calls] == [
        ("summarise", "summarise_section"),
        ("summarise", "summarise_file"),
    ]
    shown = parse_variables(load_prompt("summarise_file"), chat.calls[1].user)
    assert shown["filename"] == "acd179.md"
    assert "Section 2: EXPERT 1: on hiring\nSummary: Hire seniors first." in shown["sections"]


async def test_empty_summaries_fall_back_to_the_source() -> None:
    chat = ResponderChat(
        scripted_responder(
            {"summarise_section": {"summary": " "}, "summarise_file": {"summary": ""}}
        )
    )
    summariser = LLMSummariser(chat)
    assert (await summariser.summarise_section("Short section text.", "T")) == "Short section text."
    assert (await summariser.summarise_file("f.md", [("A", "a"), ("B", "b")])) == "A; B"
