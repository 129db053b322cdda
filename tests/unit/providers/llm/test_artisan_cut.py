"""Artisan Cut 2A/2B through a chat model: arcs of 50-150 characters, salience 1-10, turn flags."""

import json

import pytest

from shared.domain import ArtisanCut, TurnCut
from shared.errors import ModelOutputError
from shared.prompts import load_prompt
from shared.providers.llm import LLMCompressor, LLMVerifier
from shared.providers.local.chunking import chunk_text
from tests.fakes.llm_responder import (
    ResponderChat,
    parse_variables,
    realistic_responder,
    scripted_responder,
)
from tests.fixtures.transcripts import interview_transcript

TEXT = interview_transcript(total_chars=9_000, turns=4)
CHUNK = chunk_text(TEXT)[1]
SECTION, TITLE = TEXT[CHUNK.start : CHUNK.end], CHUNK.title


def _is_valid(cut: ArtisanCut | TurnCut) -> None:
    assert 50 <= len(cut.decision_arc_summary) <= 150
    assert 1 <= cut.salience_score <= 10


async def test_2a_then_2b_give_a_valid_cut_and_2b_sees_2a_s_cut() -> None:
    chat = ResponderChat(realistic_responder)
    cut = await LLMCompressor(chat).compress(SECTION, TITLE)
    verified = await LLMVerifier(chat).verify(SECTION, TITLE, cut)
    _is_valid(cut)
    assert verified == cut  # the fake reviewer is satisfied
    assert [(c.role, c.prompt) for c in chat.calls] == [
        ("compress", "artisan_cut_2a"),
        ("verify", "artisan_cut_2b"),
    ]
    shown = parse_variables(load_prompt("artisan_cut_2b"), chat.calls[1].user)
    assert shown["text"] == SECTION and shown["title"] == TITLE
    assert json.loads(shown["cut_json"])["decision_arc_summary"] == cut.decision_arc_summary


@pytest.mark.parametrize(
    ("arc", "salience"),
    [
        ("Pricing", 0),
        ("", -3),
        ("usage tiers " * 30, 42),
        ("x" * 400, 10),
        ("  Pricing:\n usage   tiers; churn risk among small teams is the driver  ", 7.6),
    ],
)
async def test_out_of_contract_answers_are_fixed_in_code(arc: str, salience: float) -> None:
    answer = {"chunk_essence": "EXPERT 1 advises usage tiers.", "decision_arc_summary": arc}
    chat = ResponderChat(
        scripted_responder(
            {
                "artisan_cut_2a": {**answer, "salience_score": salience},
                "artisan_cut_2b": {**answer, "salience_score": salience},
            }
        )
    )
    cut = await LLMCompressor(chat).compress(SECTION, TITLE)
    _is_valid(cut)
    _is_valid(await LLMVerifier(chat).verify(SECTION, TITLE, cut))
    assert "  " not in cut.decision_arc_summary and "\n" not in cut.decision_arc_summary


async def test_a_cut_with_nothing_in_it_is_refused() -> None:
    empty = {"chunk_essence": " ", "decision_arc_summary": "", "salience_score": 5}
    chat = ResponderChat(scripted_responder({"artisan_cut_2a": empty}))
    with pytest.raises(ModelOutputError, match="no essence"):
        await LLMCompressor(chat).compress(SECTION, TITLE)


async def test_an_arc_alone_also_serves_as_the_essence() -> None:
    only_arc = {"chunk_essence": "", "decision_arc_summary": "a" * 60, "salience_score": 5}
    chat = ResponderChat(scripted_responder({"artisan_cut_2a": only_arc}))
    cut = await LLMCompressor(chat).compress(SECTION, TITLE)
    assert cut.chunk_essence == "a" * 60


def _turn_answer(is_instruction: bool, scope: str | None, persona: str = "Gunnar") -> dict:
    return {
        "boss_essence": "Boss tells the persona how to answer.",
        "persona_name": persona,
        "persona_essence": "Persona agrees.",
        "decision_arc_summary": "Instruction: answer style",
        "salience_score": 8,
        "is_instruction": is_instruction,
        "instruction_scope": scope,
    }


@pytest.mark.parametrize(
    ("message", "persona", "answer", "expected"),
    [
        ("Gunnar, don't use sports analogies.", "Gunnar", _turn_answer(True, "Gunnar"), "gunnar"),
        ("Gunnar, don't use sports analogies.", "gunnar", _turn_answer(True, None), "gunnar"),
        (
            "All of you: always answer in bullet points.",
            "vlad",
            _turn_answer(True, "All personas", "vlad"),
            "global",
        ),
        (
            "All of you: always answer in bullet points.",
            "vlad",
            _turn_answer(True, " GLOBAL "),
            "global",
        ),
        ("What should we charge?", "gunnar", _turn_answer(False, "gunnar"), None),
        # held to the one rule (shared/memory_rule.py): a persona only when the message names it
        ("Always answer in English.", "ananya", _turn_answer(True, "ananya"), "global"),
        ("I prefer short answers.", "gunnar", _turn_answer(True, None), "global"),
        ("Vlad, never use sports analogies.", "gunnar", _turn_answer(True, "gunnar"), "vlad"),
        ("Vlad, never use sports analogies.", "gunnar", _turn_answer(True, "global"), "vlad"),
    ],
)
async def test_turn_cuts_carry_instruction_flags_with_a_normalised_scope(
    message: str, persona: str, answer: dict, expected: str | None
) -> None:
    chat = ResponderChat(scripted_responder({"turn_cut_2a": answer, "turn_cut_2b": answer}))
    cut = await LLMCompressor(chat).compress_turn(message, "Understood.", persona)
    verified = await LLMVerifier(chat).verify_turn(message, "Understood.", persona, cut)
    for result in (cut, verified):
        _is_valid(result)
        assert result.is_instruction == answer["is_instruction"]
        assert result.instruction_scope == expected
        assert result.persona_name == persona.lower()
        assert result.boss_essence == answer["boss_essence"]
        # a model that gave no instruction words: the boss essence stands for them
        assert result.instruction == (answer["boss_essence"] if expected else None)
    assert [(c.role, c.prompt) for c in chat.calls] == [
        ("compress", "turn_cut_2a"),
        ("verify", "turn_cut_2b"),
    ]
    shown = parse_variables(load_prompt("turn_cut_2b"), chat.calls[1].user)
    assert shown["user_message"] == message and shown["persona"] == persona
    assert json.loads(shown["cut_json"])["is_instruction"] == answer["is_instruction"]


async def test_realistic_turn_cuts_detect_both_instruction_scopes() -> None:
    chat = ResponderChat(realistic_responder)
    compressor, verifier = LLMCompressor(chat), LLMVerifier(chat)
    cases = [
        ("Gunnar, don't use sports analogies.", "gunnar", "gunnar"),
        ("All of you: always answer in bullet points.", "vlad", "global"),
    ]
    for message, persona, scope in cases:
        cut = await compressor.compress_turn(message, "Understood, noted for the future.", persona)
        cut = await verifier.verify_turn(message, "Understood.", persona, cut)
        assert cut.is_instruction and cut.instruction_scope == scope
        _is_valid(cut)


async def test_empty_turn_essences_fall_back_to_the_messages() -> None:
    answer = {**_turn_answer(False, None), "boss_essence": "", "persona_essence": ""}
    chat = ResponderChat(scripted_responder({"turn_cut_2a": answer}))
    cut = await LLMCompressor(chat).compress_turn("How big is the market?", "About $4B.", "kirby")
    assert cut.boss_essence == "How big is the market?" and cut.persona_essence == "About $4B."
