"""Which messages ask for a meeting's document (answered by the document tool) and which for an
answer (a summary of a file is an answer: its figures and decisions, quoted)."""

import pytest

from shared.text.document_requests import asks_for_document


@pytest.mark.parametrize(
    "message",
    [
        "Summarise this meeting",
        "Can you write a recap of the call?",
        "Summary of the attached transcript, please",
        "Minutes of the board session",
        "List the action items",
        "summarize yesterday's stand-up",
    ],
)
def test_a_meeting_document_is_asked_for(message: str) -> None:
    assert asks_for_document(message)


@pytest.mark.parametrize(
    "message",
    ["Summarise this document", "Give me a summary of the pricing page", "What did we decide?"],
)
def test_a_summary_of_a_file_is_an_answer(message: str) -> None:
    assert not asks_for_document(message)


def test_a_long_message_without_a_meeting_word_is_an_answer() -> None:
    assert not asks_for_document("summary " + "x " * 200_000)
