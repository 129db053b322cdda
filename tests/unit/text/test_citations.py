"""An answer's claims: its sentences (one line at most) with the `[Ref: N]` markers after each."""

from collections.abc import Callable

import pytest

from shared.text.citations import drop_claims, split_claims
from tests.unit.text.linear_time import assert_linear


def claims(answer: str) -> list[tuple[str, tuple[int, ...]]]:
    return [(claim.text, claim.refs) for claim in split_claims(answer)]


def test_markers_after_a_full_stop_belong_to_its_sentence_with_or_without_a_space() -> None:
    assert claims("Price is $49.[Ref: 1] Two hires. [Ref: 2] [Ref: 3]\nBye") == [
        ("Price is $49.[Ref: 1]", (1,)),
        ("Two hires. [Ref: 2] [Ref: 3]", (2, 3)),
        ("Bye", ()),
    ]


def test_markers_on_the_next_line_still_cite_the_sentence_before_them() -> None:
    assert claims("Price is $49\n[Ref: 1]\nTwo hires.") == [
        ("Price is $49\n[Ref: 1]", (1,)),
        ("Two hires.", ()),
    ]


def test_a_quoted_sentence_ends_after_its_closing_quote() -> None:
    assert claims('He said "we hire." [Ref: 1] Then we did.') == [
        ('He said "we hire." [Ref: 1]', (1,)),
        ("Then we did.", ()),
    ]


def test_markers_before_any_sentence_or_alone_are_still_a_claim() -> None:
    assert claims("[Ref: 1] We hire. Soon.") == [("[Ref: 1] We hire.", (1,)), ("Soon.", ())]
    assert claims(" [Ref: 2] ") == [("[Ref: 2]", (2,))]
    assert claims("  \n ") == []


def test_a_list_stays_a_list_when_a_claim_is_dropped() -> None:
    answer = (
        "Here it is:\n\n- Price is $49. [Ref: 1]\n- Two hires. [Ref: 2]\n- Office in Oslo. [Ref: 3]"
    )
    kept, removed = drop_claims(answer, lambda claim: claim.refs != (2,))
    assert kept == "Here it is:\n\n- Price is $49. [Ref: 1]\n- Office in Oslo. [Ref: 3]"
    assert removed == ["Two hires."]  # the statement, without its list marker
    assert (
        drop_claims("One. [Ref: 1] Two. [Ref: 2]", lambda c: True)[0]
        == "One. [Ref: 1] Two. [Ref: 2]"
    )


@pytest.mark.parametrize(
    "make",
    [
        lambda n: "\n" * n,  # every line break ends a claim
        lambda n: ". [Ref: 1]" * (n // 10),
        lambda n: "[Ref: 1]" * (n // 8),
        lambda n: ".\n" + " " * n,
    ],
)
def test_hostile_answers_are_split_in_linear_time(make: Callable[[int], str]) -> None:
    assert_linear(split_claims, make, 50_000)
