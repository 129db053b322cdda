"""The budget: priority order, the cap, no duplicates, truncation counts, cut P1 turns, refs."""

import re
import uuid

import pytest

from services.context.budget import (
    ELLIPSIS,
    ITEM_OVERHEAD,
    SECTION_OVERHEAD,
    Candidate,
    SectionPlan,
    cut_to_fit,
    fill,
    text_tokens,
)
from shared.text.tokens import count_tokens


def item(kind: str = "journal", words: int = 10, cite: bool = False, **kw) -> Candidate:
    text = " ".join(f"word{i}" for i in range(words))
    citation = {"turn_id": uuid.uuid4(), "title": "arc", "snippet": text[:20]} if cite else None
    return Candidate(kind, kw.pop("id", uuid.uuid4()), text, citation=citation, **kw)


def cost(candidate: Candidate) -> int:
    return count_tokens(candidate.text) + ITEM_OVERHEAD


def test_everything_fits_under_a_large_cap_in_priority_order() -> None:
    plans = [SectionPlan("a", "P1", [item(), item()]), SectionPlan("b", "P2", [item()])]
    filled = fill(plans, cap=10_000)
    assert [len(s.items) for s in filled.sections] == [2, 1]
    assert filled.total_tokens == sum(s.tokens for s in filled.sections)
    assert filled.total_tokens == sum(cost(c) for p in plans for c in p.candidates) + 2 * 8


def test_a_tiny_cap_is_never_exceeded_and_lower_priorities_lose_first() -> None:
    first, second, third = item(words=20), item(words=20), item(words=20)
    cap = SECTION_OVERHEAD + cost(first) + SECTION_OVERHEAD + cost(second) + 5
    plans = [
        SectionPlan("p1", "P1", [first]),
        SectionPlan("p2", "P2", [second]),
        SectionPlan("p4", "P4", [third]),
    ]
    filled = fill(plans, cap=cap)
    assert filled.total_tokens <= cap
    assert [len(s.items) for s in filled.sections] == [1, 1, 0]
    assert [s.truncated for s in filled.sections] == [0, 0, 1]


def test_an_item_enters_once_whatever_section_offers_it_again() -> None:
    shared_id = uuid.uuid4()
    plans = [
        SectionPlan("p1", "P1", [item("turn", id=shared_id)]),
        SectionPlan("p2", "P2", [item("turn", id=shared_id, cite=True)]),
        SectionPlan("p4", "P4", [item(id=shared_id, cite=True), item(cite=True)]),
    ]
    filled = fill(plans, cap=10_000)
    ids = [i.id for s in filled.sections for i in s.items]
    assert len(ids) == len(set(ids)) == 2
    assert [s.truncated for s in filled.sections] == [0, 0, 0]  # a duplicate is not truncation


def test_excluded_ids_never_enter() -> None:
    excluded = uuid.uuid4()
    filled = fill(
        [SectionPlan("p1", "P1", [item(id=excluded), item()])], 10_000, frozenset({excluded})
    )
    assert excluded not in [i.id for i in filled.sections[0].items]


def test_a_long_p1_turn_is_cut_to_fit_with_an_ellipsis() -> None:
    long_turn = item("turn", words=400, cuttable=True)
    cap = 120
    filled = fill([SectionPlan("recent_turns", "P1", [long_turn])], cap=cap)
    [entered] = filled.sections[0].items
    assert entered.text.endswith(ELLIPSIS)
    assert long_turn.text.startswith(entered.text.removesuffix(ELLIPSIS))
    assert filled.total_tokens <= cap
    assert filled.total_tokens > cap - 10  # it uses the room it has


def test_a_non_cuttable_item_too_long_is_left_out_but_smaller_ones_after_it_fit() -> None:
    big, small = item(words=400), item(words=5)
    filled = fill([SectionPlan("journal", "P4", [big, small])], cap=60)
    assert [i.id for i in filled.sections[0].items] == [small.id]
    assert filled.sections[0].truncated == 1


def test_references_are_numbered_in_order_of_appearance() -> None:
    plans = [
        SectionPlan("p1", "P1", [item("turn")]),  # not citable
        SectionPlan("p2", "P2", [item("turn", cite=True)]),
        SectionPlan("p4", "P4", [item(cite=True), item(cite=True)]),
    ]
    filled = fill(plans, cap=10_000)
    refs = [i.ref for s in filled.sections for i in s.items]
    assert refs == [None, 1, 2, 3]
    assert [c.ref for c in filled.references] == [1, 2, 3]
    offered = [c.citation["turn_id"] for plan in plans[1:] for c in plan.candidates]
    assert [c.turn_id for c in filled.references] == offered


def test_cut_to_fit_gives_nothing_when_the_room_is_too_small() -> None:
    assert cut_to_fit("a b c d e f g h", 3) == ""
    text = "alpha beta gamma " * 50
    cut = cut_to_fit(text, 40)
    assert cut.endswith(ELLIPSIS) and count_tokens(cut) <= 40


def reference_count(text: str) -> int:
    """count_tokens as first written: a word of n letters is 1 + (n - 1) // 6 tokens."""
    pieces = re.findall(r"[A-Za-z]+|\d{1,3}|[^\sA-Za-z\d]", text)
    return sum(1 + (len(p) - 1) // 6 if p.isalpha() else 1 for p in pieces)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a",
        "abcdef abcdefg abcdefghijklm",
        "Pneumonoultramicroscopicsilicovolcanoconiosis!",
        "12345678 3.14159 -- ...",
        "café naïve 東京 straße €5",
        "x\ty\nz  ,;:",
    ],
)
def test_token_counts_match_their_definition(text: str) -> None:
    assert count_tokens(text) == text_tokens(text) == reference_count(text)
