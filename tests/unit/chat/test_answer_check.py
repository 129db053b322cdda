"""Offline 1B removes cited sentences their passages do not support, and unknown refs."""

from shared.personas import get_persona
from shared.providers.base import AnswerInput
from shared.providers.local.answer_check import LocalAnswerChecker, check_answer_text
from shared.text.citations import cited_refs, split_claims
from tests.unit.chat.bundles import HIRING, PRICING, file_bundle

PASSAGES = {1: PRICING, 2: HIRING}


def test_claims_carry_the_refs_that_follow_them() -> None:
    claims = split_claims("Lead in.\n\nPrice is $49. [Ref: 1] Two hires. [Ref: 2][Ref: 1] Bye")
    assert [c.refs for c in claims] == [(), (1,), (2, 1), ()]
    assert claims[2].statement == "Two hires."
    assert cited_refs("a [Ref: 2] b [Ref: 1] c [Ref: 2]") == [2, 1]


def test_supported_sentences_stay_and_unsupported_ones_go() -> None:
    answer = (
        "Here is what I found.\n\n"
        "We decided to raise the Pro plan to $49 per seat per month. [Ref: 1] "
        "The company will open an office in Lisbon next year. [Ref: 1] "
        "We will hire two backend engineers in the second quarter. [Ref: 2]"
    )
    checked = check_answer_text(answer, PASSAGES)
    assert checked.removed == ["The company will open an office in Lisbon next year."]
    assert "Lisbon" not in checked.answer
    assert checked.answer.startswith("Here is what I found.\n\nWe decided to raise")
    assert checked.answer.endswith("second quarter. [Ref: 2]")


def test_a_citation_to_a_ref_not_in_the_bundle_is_removed() -> None:
    checked = check_answer_text("We will hire two backend engineers. [Ref: 7]", PASSAGES)
    assert (checked.answer, checked.removed) == ("", ["We will hire two backend engineers."])


def test_a_sentence_cited_to_the_wrong_passage_is_removed() -> None:
    checked = check_answer_text("We will hire two backend engineers. [Ref: 1]", PASSAGES)
    assert checked.removed == ["We will hire two backend engineers."]


async def test_the_checker_role_checks_against_the_request_passages() -> None:
    bundle, passages = file_bundle({"pricing.md": PRICING})
    request = AnswerInput(get_persona("vlad"), "price?", bundle, passages)
    checked = await LocalAnswerChecker().check_answer(request, "Pro costs $49 per seat. [Ref: 1]")
    assert checked.removed == []
