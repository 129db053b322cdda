"""Local Artisan Cut: extractive essence, a 50-150 character decision arc, salience 1-10."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.domain import ArtisanCut
from shared.providers.local import LocalCompressor
from shared.providers.local.artisan_cut import ESSENCE_MAX_CHARS, artisan_cut, salience
from shared.providers.local.chunking import chunk_text
from tests.fixtures.transcripts import interview_transcript

PRICING_ANSWER = """EXPERT 2: Thanks, good question. Let me give you some background first.

When I ran growth at Contoso we sold per seat, and small teams hated it. Honestly, the
weather that year was terrible too, which did not help anyone's mood. We decided to move to
three usage tiers in 2021 because our largest customers wanted predictable bills.

I recommend you do the same: launch a Starter tier at $29 a month and a Team tier at $99.
The main risk is churn among teams that sit between tiers, so you should watch downgrades
weekly for the first 90 days. Anyway, that's enough from me on that topic for now.
"""


def _is_valid(cut: ArtisanCut, text: str) -> None:
    assert cut.chunk_essence.strip()
    assert 50 <= len(cut.decision_arc_summary) <= 150
    assert 1 <= cut.salience_score <= 10
    assert len(cut.chunk_essence) <= ESSENCE_MAX_CHARS


def test_essence_keeps_the_decisive_sentences_in_order() -> None:
    cut = artisan_cut(PRICING_ANSWER, "EXPERT 2: on pricing tiers")
    _is_valid(cut, PRICING_ANSWER)
    essence = cut.chunk_essence
    assert essence.startswith("EXPERT 2: ")  # attributed to the speaker
    assert "We decided to move to three usage tiers in 2021" in essence
    assert "I recommend you do the same" in essence
    assert essence.index("We decided") < essence.index("I recommend")
    assert "weather" not in essence and "Thanks" not in essence
    assert len(essence) < len(PRICING_ANSWER)


def test_decision_arc_points_at_topic_and_key_clause() -> None:
    arc = artisan_cut(PRICING_ANSWER, "EXPERT 2: on pricing tiers").decision_arc_summary
    assert arc.startswith("EXPERT 2: on pricing tiers — ")
    assert "tier" in arc.split("—", 1)[1]
    assert 50 <= len(arc) <= 150
    assert not arc.endswith((" ", ",", ";"))


def test_salience_separates_greetings_from_firm_decisions() -> None:
    greeting = "Hi everyone, thanks for joining today. Good to see you all."
    decision = (
        "We decided to raise the Pro plan to $49 per month from March 1 because churn risk is "
        "low. We will commit $200k to the launch and must hit 1,000 upgrades by June."
    )
    description = (
        "The office is on the third floor of the old brewery building. It has a kitchen, two "
        "meeting rooms and a view of the river. Most people arrive by bike or by tram."
    )
    assert salience(greeting) <= 2
    assert salience(description) <= 3
    assert salience(decision) >= 8
    assert 4 <= salience(PRICING_ANSWER) <= 8


def test_very_short_text_still_gets_a_padded_arc() -> None:
    for text, title in [("Hi.", ""), ("Ok", "Note"), ("Yes, agreed.", "BOSS: on budget")]:
        cut = artisan_cut(text, title)
        _is_valid(cut, text)
        assert cut.chunk_essence


def test_long_chunk_essence_is_shorter_than_the_input() -> None:
    text = interview_transcript()
    for span in chunk_text(text)[:8]:
        chunk = text[span.start : span.end]
        cut = artisan_cut(chunk, span.title)
        _is_valid(cut, chunk)
        assert len(cut.chunk_essence) < len(chunk) / 3
        # extractive: every essence sentence comes from the chunk
        body = cut.chunk_essence.split(": ", 1)[1]
        for sentence in re.split(r"(?<=[.!?])\s+", body):
            assert sentence in " ".join(chunk.split())


def test_compression_is_deterministic() -> None:
    first = artisan_cut(PRICING_ANSWER, "Pricing")
    assert all(artisan_cut(PRICING_ANSWER, "Pricing") == first for _ in range(3))


@given(text=st.text(min_size=1, max_size=600), title=st.text(max_size=80))
@settings(max_examples=200, deadline=None)
def test_any_input_gives_a_valid_cut(text: str, title: str) -> None:
    cut = artisan_cut(text, title)
    assert 50 <= len(cut.decision_arc_summary) <= 150
    assert 1 <= cut.salience_score <= 10
    assert len(cut.chunk_essence) <= ESSENCE_MAX_CHARS


async def test_local_compressor_implements_the_interface() -> None:
    cut = await LocalCompressor().compress(PRICING_ANSWER, "Pricing")
    assert isinstance(cut, ArtisanCut)
    assert cut == artisan_cut(PRICING_ANSWER, "Pricing")
