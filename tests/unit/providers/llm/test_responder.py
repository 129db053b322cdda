"""The fake LLM behind the fake model server: it recognises every prompt and reads it back."""

import json

import pytest

from shared.prompts import load_prompt, prompt_names
from tests.fakes.llm_responder import (
    REALISTIC_ANSWERS,
    chat_request,
    malformed_then,
    parse_variables,
    prompt_name,
    realistic_responder,
    scripted_responder,
)

_VALUES = {
    "text": 'BOSS: Let\'s decide on pricing.\n\nEXPERT 1: Use tiers. {"json": 1} </text>\n',
    "title": "Pricing",
    "char_count": "71",
    "context_note": "This is the complete document.",
    "chunks_json": '{"chunks": [{"start": 0, "end": 31, "title": "A", "summary": "s"}]}',
    "cut_json": json.dumps(
        {"chunk_essence": "e", "decision_arc_summary": "a" * 60, "salience_score": 5}
    ),
    "persona": "gunnar",
    "user_message": "Gunnar, don't use sports analogies.",
    "ai_response": "Understood.",
    "instruction_scope": "gunnar",
    "filename": "notes.md",
    "sections": "Section 1: Pricing\nSummary: Tiers were chosen.",
    # chat 1A / 1B
    "persona_name": "Gunnar",
    "persona_role": "Strategy & CEO advisor",
    "persona_profile": "I'm Gunnar.",
    "persona_voice": "Blunt.",
    "instructions": "- Don't use sports analogies.",
    "context": '<source ref="1">\nWe decided on three pricing tiers for the launch.\n</source>',
    "question": "What did we decide on pricing tiers?",
    "sources": '<source ref="1">\nWe decided on three pricing tiers for the launch.\n</source>',
    "answer": "We decided on three pricing tiers for the launch. [Ref: 1]",
}
PLAIN_TEXT_PROMPTS = {"chat_1a"}  # streamed answers, not JSON
# parts added to another prompt's messages (chat 1A's, when tools are offered), never a request
FRAGMENTS = {"chat_tools"}
REQUEST_PROMPTS = sorted(set(prompt_names()) - FRAGMENTS)


@pytest.mark.parametrize("name", REQUEST_PROMPTS)
def test_every_prompt_is_recognised_and_its_variables_read_back(name: str) -> None:
    prompt = load_prompt(name)
    values = {variable: _VALUES[variable] for variable in prompt.variables}
    system, user = prompt.render(**values)
    assert prompt_name(chat_request(system, user)) == name
    assert parse_variables(prompt, user) == values
    assert name in REALISTIC_ANSWERS


@pytest.mark.parametrize("name", sorted(set(REQUEST_PROMPTS) - PLAIN_TEXT_PROMPTS))
def test_every_prompt_gets_a_json_object(name: str) -> None:
    prompt = load_prompt(name)
    system, user = prompt.render(**{variable: _VALUES[variable] for variable in prompt.variables})
    assert isinstance(json.loads(realistic_responder(chat_request(system, user))), dict)


def test_repair_turns_do_not_confuse_the_responder() -> None:
    system, user = load_prompt("classify").render(text="We decided to pivot because churn rose.")
    request = chat_request(system, user)
    request["messages"] += [
        {"role": "assistant", "content": "not json"},
        {"role": "user", "content": "Your answer was not valid JSON; answer again."},
    ]
    assert json.loads(realistic_responder(request))["file_type"] in {"strategic", "mixed"}


def test_malformed_then_fails_the_given_number_of_times() -> None:
    system, user = load_prompt("classify").render(text="x")
    responder = malformed_then(scripted_responder({"classify": {"file_type": "factual"}}), 2)
    answers = [responder(chat_request(system, user)) for _ in range(3)]
    assert answers[:2] == ['{"chunks": [ oops'] * 2
    assert json.loads(answers[2]) == {"file_type": "factual"}


def test_a_request_without_a_marker_is_refused() -> None:
    with pytest.raises(ValueError, match="marker"):
        realistic_responder(chat_request("You are helpful.", "hi"))
