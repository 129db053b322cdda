"""A sentence is quoted for the entity the question names, never for a neighbour's."""

from shared.domain import REFUSAL
from shared.personas import get_persona
from shared.providers.base import AnswerInput
from shared.providers.local.answer import LocalAnswerer
from shared.text.citations import split_claims
from tests.fixtures.board_meeting import BOARD_MEETING
from tests.unit.chat.bundles import file_bundle

COMPETITORS = (
    "# Competitors\nCompetitor A charges $49 per seat. Competitor B charges $99 per seat.\n"
)


async def quoted(question: str, documents: dict[str, str]) -> tuple[list[str], bool]:
    bundle, passages = file_bundle(documents)
    stream = LocalAnswerer().stream_answer(
        AnswerInput(get_persona("vlad"), question, bundle, passages)
    )
    text = "".join([piece async for piece in stream])
    return [c.statement for c in split_claims(text) if c.refs], stream.refused


async def test_a_price_is_quoted_for_the_competitor_the_question_names() -> None:
    said, _ = await quoted("What does Competitor B charge?", {"competitors.md": COMPETITORS})
    assert said == ["Competitor B charges $99 per seat."]
    said, _ = await quoted("What does Competitor A charge?", {"competitors.md": COMPETITORS})
    assert said == ["Competitor A charges $49 per seat."]


async def test_in_a_long_document_too_only_the_named_competitor_is_quoted() -> None:
    said, _ = await quoted("What does Competitor B charge per seat?", {"board.md": BOARD_MEETING})
    assert said and all("Competitor B" in sentence for sentence in said), said


async def test_a_neighbours_price_is_no_answer() -> None:
    beta = "# Competitors\nBeta charges $79 per seat. Beta sells annual contracts only.\n"
    said, refused = await quoted("What does Acme charge?", {"competitors.md": beta})
    assert (said, refused) == ([], True)
    said, refused = await quoted("What does Competitor C charge?", {"c.md": COMPETITORS})
    assert (said, refused) == ([], True)


async def test_a_section_titled_with_the_entity_answers_for_it_unless_it_names_another() -> None:
    notes = (
        "# Acme\nThey charge $49 per seat on annual contracts.\n\n"
        "# Beta\nBeta charges $79 per seat on annual contracts.\n"
    )
    said, _ = await quoted("What does Acme charge per seat?", {"notes.md": notes})
    assert said == ["They charge $49 per seat on annual contracts."]


async def test_every_quoted_sentence_names_the_entity_not_only_the_best() -> None:
    notes = (
        "Globex raised its price to $120 per seat in May. "
        "Initech raised its price to $90 per seat in May. "
        "Globex also raised its support fee to $20 per seat."
    )
    said, _ = await quoted("How much did Globex raise its price per seat?", {"n.md": notes})
    assert said and all("Globex" in sentence for sentence in said), said
    assert REFUSAL not in said


async def test_a_pronoun_takes_up_the_entity_of_the_sentence_before_it_not_a_neighbours() -> None:
    art = "# Art\nThe most famous work of that art is the Tapestry. It was commissioned by Odo."
    said, _ = await quoted("Who commissioned the Tapestry?", {"art.md": art})
    assert "It was commissioned by Odo." in said
    plans = (
        "Competitor A charges $49 per seat. Its enterprise plan costs $99 per seat.\n\n"
        "Competitor B charges $99 per seat.\n"
    )
    said, _ = await quoted("What does Competitor B's enterprise plan cost?", {"p.md": plans})
    assert not any("enterprise" in sentence for sentence in said), said
