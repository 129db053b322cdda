"""Each answer's citations numbered 1…n in order of first mention: in a finished answer, in one
streamed piece by piece, and in a turn stored before answers numbered their own."""

import pytest

from services.gateway.conversations.turn_schemas import numbered_from_one
from shared.text.citations import StreamedMarkers, first_mention_numbers, renumber_markers

ANSWER = (
    "Bills are predictable. [Ref: 57] Seats went away [Ref: 3][Ref: 57]. Margin is 74%.[Ref: 13]"
)


def test_refs_are_numbered_in_order_of_first_mention() -> None:
    numbers = first_mention_numbers(ANSWER, [3, 13, 57])
    assert numbers == {57: 1, 3: 2, 13: 3}
    assert renumber_markers(ANSWER, numbers) == (
        "Bills are predictable. [Ref: 1] Seats went away [Ref: 2][Ref: 1]. Margin is 74%.[Ref: 3]"
    )


def test_a_marker_without_a_source_is_dropped_with_its_space() -> None:
    numbers = first_mention_numbers("A [Ref: 9]. B [Ref: 4].", [4])
    assert numbers == {4: 1}
    assert renumber_markers("A [Ref: 9]. B [Ref: 4].", numbers) == "A. B [Ref: 1]."


def test_a_source_the_answer_never_mentions_comes_last() -> None:
    assert first_mention_numbers("Only [Ref: 8].", [2, 8]) == {8: 1, 2: 2}


def test_numbers_already_one_to_n_stay_as_they_are() -> None:
    text = "A [Ref: 1]. B [Ref: 2]."
    assert renumber_markers(text, first_mention_numbers(text, [1, 2])) == text


@pytest.mark.parametrize("size", [1, 2, 3, 5, 7, 100])
def test_streamed_pieces_are_numbered_as_the_whole_answer_is(size: int) -> None:
    """However the answer is cut into pieces (a marker split across two), what streams joins
    into the renumbered answer."""
    markers = StreamedMarkers([3, 13, 57])
    pieces = [ANSWER[at : at + size] for at in range(0, len(ANSWER), size)]
    streamed = "".join(markers.feed(piece) for piece in pieces) + markers.flush()
    assert streamed == renumber_markers(ANSWER, first_mention_numbers(ANSWER, [3, 13, 57]))


def test_a_bracket_that_is_no_marker_streams_through() -> None:
    markers = StreamedMarkers([1])
    assert markers.feed("see [R") == "see "
    assert markers.feed("FC 9] and [Re") == "[RFC 9] and "
    assert markers.flush() == "[Re"


def test_an_old_stored_turn_is_numbered_from_one_on_read() -> None:
    citations = [
        {"ref": 3, "snippet": "b"},
        {"ref": 57, "snippet": "a"},
        {"ref": 13, "snippet": "c"},
    ]
    answer, renumbered = numbered_from_one(ANSWER, citations)
    assert answer.count("[Ref: 1]") == 2 and "[Ref: 57]" not in answer
    assert renumbered == [
        {"ref": 1, "snippet": "a"},
        {"ref": 2, "snippet": "b"},
        {"ref": 3, "snippet": "c"},
    ]


def test_a_turn_citing_nothing_keeps_its_text() -> None:
    """An imported reply may hold markers of its own; with no sources they stay as written."""
    assert numbered_from_one("As noted [Ref: 2].", []) == ("As noted [Ref: 2].", [])
