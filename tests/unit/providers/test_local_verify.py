"""Local verifier (call 2B): what a cut says must come from its source; bounds are enforced."""

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shared.domain import ArtisanCut, TurnCut
from shared.providers.local import LocalVerifier
from shared.providers.local.artisan_cut import artisan_cut
from shared.providers.local.tracing import Source, invented_figures
from shared.providers.local.turns import turn_cut
from shared.providers.local.verify import verify_cut, verify_turn_cut

SOURCE = (
    "EXPERT 2: When I ran growth at Contoso we sold per seat, and small teams hated it. "
    "We decided to move to three usage tiers in 2021 because our largest customers wanted "
    "predictable bills. I recommend you launch a Starter tier at $29 a month and a Team tier "
    "at $99. The main risk is churn among teams between tiers, so watch downgrades weekly for "
    "the first 90 days. We budgeted $200k for the migration."
)
TITLE = "EXPERT 2: on pricing tiers"
DECIDED = (
    "We decided to move to three usage tiers in 2021 because our largest customers wanted "
    "predictable bills."
)
INVENTED = "The CEO resigned after the Initech merger collapsed in Singapore."


def _cut(essence: str, arc: str = "Pricing tiers: usage tiers replace per-seat", salience: int = 7):
    return ArtisanCut(chunk_essence=essence, decision_arc_summary=arc, salience_score=salience)


def test_an_invented_sentence_is_dropped_and_the_true_ones_kept() -> None:
    verified = verify_cut(SOURCE, TITLE, _cut(f"{DECIDED} {INVENTED}"))
    assert verified.chunk_essence == DECIDED


def test_a_sentence_with_an_invented_figure_is_dropped() -> None:
    wrong_price = "I recommend you launch a Starter tier at $39 a month."
    verified = verify_cut(SOURCE, TITLE, _cut(f"{wrong_price} {DECIDED}"))
    assert "$39" not in verified.chunk_essence
    assert verified.chunk_essence == DECIDED


def test_figures_are_matched_in_any_written_form() -> None:
    source = Source.of(SOURCE)
    assert invented_figures("a $200,000 budget, 3 tiers, 2021, 90 days, $29.00", source) == []
    assert invented_figures("200 thousand dollars, 0.2 million", source) == []
    assert invented_figures("$300k and 45 days", source) == ["$300k", "45"]


def test_an_arc_clause_with_an_invented_figure_is_removed() -> None:
    arc = "Pricing tiers — Starter at $29, Team at $149; watch downgrades for 90 days"
    verified = verify_cut(SOURCE, TITLE, _cut(DECIDED, arc=arc))
    assert "$149" not in verified.decision_arc_summary
    assert "Starter at $29" in verified.decision_arc_summary
    assert "90 days" in verified.decision_arc_summary
    assert 50 <= len(verified.decision_arc_summary) <= 150


def test_an_essence_with_nothing_traceable_is_recomputed_from_the_source() -> None:
    verified = verify_cut(SOURCE, TITLE, _cut(INVENTED))
    assert "Initech" not in verified.chunk_essence
    assert verified.chunk_essence == artisan_cut(SOURCE, TITLE).chunk_essence


@pytest.mark.parametrize(("given_score", "expected"), [(0, 1), (-3, 1), (14, 10), (7, 7)])
def test_salience_is_clamped_to_1_10(given_score: int, expected: int) -> None:
    assert verify_cut(SOURCE, TITLE, _cut(DECIDED, salience=given_score)).salience_score == expected


def test_a_short_arc_is_padded_and_a_long_one_trimmed_at_a_word() -> None:
    short = verify_cut(SOURCE, TITLE, _cut(DECIDED, arc="Usage tiers")).decision_arc_summary
    assert 50 <= len(short) <= 150 and short.startswith("Usage tiers")
    assert "pricing tiers" in short  # padded from the title first
    long_arc = "Pricing tiers: " + "; ".join(["usage tiers replace per-seat pricing"] * 8)
    trimmed = verify_cut(SOURCE, TITLE, _cut(DECIDED, arc=long_arc)).decision_arc_summary
    assert 50 <= len(trimmed) <= 150
    assert long_arc.startswith(trimmed) and long_arc[len(trimmed)] in " ;"


def test_an_arc_that_points_nowhere_is_rebuilt_from_the_source() -> None:
    verified = verify_cut(SOURCE, TITLE, _cut(DECIDED, arc="Quarterly gardening roster"))
    assert verified.decision_arc_summary == artisan_cut(SOURCE, TITLE).decision_arc_summary


def test_a_faithful_cut_passes_unchanged() -> None:
    cut = artisan_cut(SOURCE, TITLE)
    assert verify_cut(SOURCE, TITLE, cut) == cut


USER = "Gunnar, don't use sports analogies. Also, we raised the Pro plan to $49 last week."
ANSWER = "Understood, no more sports analogies. The $49 price should hold if churn stays flat."


def _turn(**fields: object) -> TurnCut:
    """A turn cut as a model might return it, bypassing validation (salience 14 included)."""
    base = turn_cut(USER, ANSWER, "gunnar").model_dump()
    return TurnCut.model_construct(**{**base, **fields})


def test_turn_essences_are_traced_to_their_own_side_of_the_turn() -> None:
    cut = _turn(
        boss_essence="Gunnar, don't use sports analogies. The boss wants a 40% discount.",
        persona_essence="The $49 price should hold if churn stays flat. Gunnar will resign.",
    )
    verified = verify_turn_cut(USER, ANSWER, "gunnar", cut)
    assert verified.boss_essence == "Gunnar, don't use sports analogies."
    assert verified.persona_essence == "The $49 price should hold if churn stays flat."


def test_turn_arc_and_salience_are_bounded() -> None:
    for score, expected in [(0, 1), (14, 10)]:
        verified = verify_turn_cut(
            USER, ANSWER, "gunnar", _turn(salience_score=score, decision_arc_summary="Pro $49")
        )
        assert verified.salience_score == expected
        assert 50 <= len(verified.decision_arc_summary) <= 150
        assert verified.decision_arc_summary.startswith("Pro $49")


def test_turn_arc_with_an_invented_figure_loses_that_clause() -> None:
    arc = "Style — no sports analogies for gunnar; Pro plan now $59"
    verified = verify_turn_cut(USER, ANSWER, "gunnar", _turn(decision_arc_summary=arc))
    assert "$59" not in verified.decision_arc_summary
    assert "no sports analogies" in verified.decision_arc_summary


@pytest.mark.parametrize(
    ("message", "is_instruction", "model_scope", "expected"),
    [
        ("Don't use sports analogies.", True, "Global ", "global"),
        # one rule (shared/memory_rule.py): a persona only when the message names it
        ("Don't use sports analogies.", True, "VLAD", "global"),
        ("Don't use sports analogies.", True, "marketing team", "global"),
        ("Don't use sports analogies.", True, None, "global"),
        ("Gunnar, don't use sports analogies.", True, None, "gunnar"),
        ("All of you, never use emojis.", True, "everyone", "global"),
        ("All of you, never use emojis.", True, "gunnar", "global"),  # the message says all
        ("Kirby, stop using bullet points.", True, "gunnar", "kirby"),  # ... or names kirby
        ("Kirby and Vlad, stop using bullet points.", True, "vlad", "vlad"),  # one of those named
        ("We never hit our Q3 target.", False, "global", None),
    ],
)
def test_turn_scope_is_normalised(
    message: str, is_instruction: bool, model_scope: str | None, expected: str | None
) -> None:
    cut = _turn(is_instruction=is_instruction, instruction_scope=model_scope)
    verified = verify_turn_cut(message, "Understood.", "Gunnar", cut)
    assert verified.instruction_scope == expected
    assert verified.persona_name == "gunnar"


async def test_local_verifier_implements_the_interface() -> None:
    verifier = LocalVerifier()
    cut = replace(artisan_cut(SOURCE, TITLE), salience_score=14)
    assert (await verifier.verify(SOURCE, TITLE, cut)).salience_score == 10
    turn = await verifier.verify_turn(USER, ANSWER, "Gunnar", _turn(salience_score=0))
    assert isinstance(turn, TurnCut) and turn.salience_score == 1


@given(
    essence=st.text(max_size=300),
    arc=st.text(max_size=300),
    salience=st.integers(min_value=-50, max_value=50),
)
@settings(max_examples=150, deadline=None)
def test_any_cut_comes_out_within_bounds(essence: str, arc: str, salience: int) -> None:
    verified = verify_cut(SOURCE, TITLE, ArtisanCut(essence, arc, salience))
    assert 50 <= len(verified.decision_arc_summary) <= 150
    assert 1 <= verified.salience_score <= 10
    assert verified.chunk_essence.strip()
    assert invented_figures(verified.chunk_essence, Source.of(SOURCE, TITLE)) == []
