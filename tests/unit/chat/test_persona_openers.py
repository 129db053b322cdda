"""Each persona opens an offline answer in its own voice, by the kind of answer: a fact, a
summary, or the records in place of advice; no two personas open alike."""

from itertools import combinations

import pytest

from shared.personas import ADVICE_OPENER, ANSWER_KINDS, load_personas, parse_persona
from shared.prompts import PromptError

QUESTIONS = (
    "What is our runway?",
    "Who owns the data room?",
    "When is the next board meeting?",
    "How many engineers will we hire?",
    "What was gross margin in February?",
    "What does Competitor B charge?",
)
ZED = "---\nname: zed\ndisplay_name: Zed\nrole: Tester\ndescription: tests\n{extra}---\n"
ZED += "## Profile\nI'm Zed.\n## Voice\nTerse.\n"


def test_every_shipped_persona_words_each_kind_of_answer_in_short_openers() -> None:
    for persona in load_personas().values():
        kinds = dict(persona.openers)
        assert set(kinds) == set(ANSWER_KINDS), persona.name
        for kind, openings in kinds.items():
            assert openings and all(len(o) <= 110 and "\n" not in o for o in openings), kind
            assert len(set(openings)) == len(openings)


def test_no_two_personas_share_an_opening() -> None:
    said = {
        name: {o for _, openings in persona.openers for o in openings}
        for name, persona in load_personas().items()
    }
    for one, other in combinations(said, 2):
        assert not said[one] & said[other], (one, other)


def test_the_opening_depends_on_the_kind_of_answer_and_varies_with_the_question() -> None:
    for persona in load_personas().values():
        for question in QUESTIONS:
            by_kind = [persona.opening(kind, question) for kind in ANSWER_KINDS]
            assert len(set(by_kind)) == len(ANSWER_KINDS), persona.name
        facts = {persona.opening("fact", question) for question in QUESTIONS}
        assert len(facts) > 1, persona.name  # not one canned line for every answer
        assert persona.opening("fact", "What is our runway?") == persona.opening(
            "fact", "what is our  runway?"
        )  # the same question opens the same way


def test_advice_openers_say_they_are_the_records_not_advice() -> None:
    for persona in load_personas().values():
        for opening in dict(persona.openers)["advice"]:
            lowered = opening.lower()
            assert "model" in lowered or "advise" in lowered, opening
            assert any(w in lowered for w in ("record", "documents", "files", "notes")), opening


def test_a_drop_in_without_openers_falls_back_to_its_lead_in_and_an_honest_advice_line() -> None:
    zed = parse_persona(ZED.format(extra="lead_in: Zed here.\n"))
    assert zed.opening("fact", "q") == zed.opening("summary", "q") == "Zed here."
    assert zed.opening("advice", "q") == ADVICE_OPENER
    zed = parse_persona(ZED.format(extra="openers:\n  fact: Zed says\n"))
    assert zed.opening("fact", "anything") == "Zed says"
    assert zed.opening("summary", "anything") == ""


@pytest.mark.parametrize(
    "extra",
    ["openers: just text\n", "openers:\n  gossip: [Psst]\n", "openers:\n  fact: [1, 2]\n"],
)
def test_malformed_openers_are_refused(extra: str) -> None:
    with pytest.raises(PromptError):
        parse_persona(ZED.format(extra=extra))
