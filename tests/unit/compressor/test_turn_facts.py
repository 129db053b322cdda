"""What a turn's memory facts may be drawn from: never an instruction's directive (facts reach
every persona, an instruction only its scope), decided by the configured memory model."""

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from services.compressor.turns import remembered_facts
from shared.config import model_settings
from shared.domain import TurnCut
from shared.prompts import load_prompt
from shared.providers import registry
from shared.providers.local import instructions, told
from shared.secrets import redact
from tests.fakes.llm_responder import parse_variables, prompt_messages, scripted_responder
from tests.fakes.model_server import FakeModelServer

CFO_AND_DIRECTIVE = "I am the CFO of Borealis. Vlad, I prefer you never use sports analogies."


def cut(is_instruction: bool, scope: str | None) -> TurnCut:
    return TurnCut(
        boss_essence="b",
        persona_name="vlad",
        persona_essence="p",
        decision_arc_summary="a",
        salience_score=5,
        is_instruction=is_instruction,
        instruction_scope=scope,
    )


def turn(message: str, persona: str = "vlad") -> dict[str, str]:
    return {"user_message": message, "ai_response": "Noted.", "persona_name": persona}


async def facts_of(message: str, turn_cut: TurnCut) -> list[str]:
    return [fact.fact for fact in await remembered_facts(turn(message), turn_cut)]


@pytest.fixture
def rule_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every call of the rule-based instruction detector, wherever it is reached from."""
    calls: list[str] = []

    def recording(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return original(*args, **kwargs)

        return call

    for module in (instructions, told):
        for name in ("directive_sentences", "without_directives"):
            monkeypatch.setattr(module, name, recording(name, getattr(module, name)))
    return calls


async def test_a_persona_scoped_directive_gives_no_fact_but_the_other_sentences_do(
    rule_calls: list[str],
) -> None:
    facts = await facts_of(CFO_AND_DIRECTIVE, cut(True, "vlad"))
    assert facts == ["The user is the CFO of Borealis.", "The user's company is called Borealis."]
    assert rule_calls  # offline, the instruction rules tell the directive apart


async def test_a_global_directive_is_an_instruction_not_a_fact() -> None:
    message = "Everyone, I'd rather you never use bullet points. I run a bakery in Oslo."
    assert await facts_of(message, cut(True, "global")) == ["The user runs a bakery in Oslo."]


async def test_a_scoped_instruction_the_rules_cannot_place_gives_no_facts() -> None:
    message = "I'd rather see the data before the story."  # a model called it Vlad's
    stated = "The user would rather see the data before the story."
    assert await facts_of(message, cut(True, "global")) == [stated]
    assert await facts_of(message, cut(True, "vlad")) == []


async def test_a_turn_that_is_no_instruction_is_read_whole() -> None:
    message = "I prefer short answers with the numbers first."
    assert await facts_of(message, cut(False, None)) == [
        "The user prefers short answers with the numbers first."
    ]


async def test_a_fact_holding_a_redaction_marker_is_refused() -> None:
    """Chat and import redact the message first: the secret is a marker by then, not a secret."""
    message = redact("I am the admin and my password is hunter2xyz. I run a bakery.").text
    assert await facts_of(message, cut(False, None)) == ["The user runs a bakery."]


# --- with a remote model configured --------------------------------------------------------


@pytest.fixture
def remote_model(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeModelServer]:
    """Settings that name a remote chat model (the fake server), as a deployment's would."""
    model_answer = {"facts": [{"kind": "user", "fact": "The user is a CFO.", "confidence": 0.9}]}
    with FakeModelServer(scripted_responder({"memory_facts": model_answer})) as server:
        monkeypatch.setenv("ARTISAN_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("ARTISAN_LLM_API_KEY", "test-key")
        monkeypatch.setenv("ARTISAN_LLM_MAX_RETRIES", "0")
        _forget_configured_models()
        yield server
    _forget_configured_models()  # the next test reads the settings without these variables


def _forget_configured_models() -> None:
    for cached in (model_settings, registry.chat_model, registry.memory_extractor):
        cached.cache_clear()


async def test_a_remote_memory_model_is_told_the_instruction_and_no_rule_decides(
    remote_model: FakeModelServer, rule_calls: list[str]
) -> None:
    facts = await facts_of(CFO_AND_DIRECTIVE, cut(True, "vlad"))

    assert facts == ["The user is a CFO."]  # the model's answer, not the rules'
    assert rule_calls == []
    [request] = remote_model.chat_requests
    prompt = load_prompt("memory_facts")
    sent = parse_variables(prompt, prompt_messages(request.json)[1])
    assert (sent["instruction_scope"], sent["user_message"]) == ("vlad", CFO_AND_DIRECTIVE)


async def test_a_remote_memory_model_hears_of_no_instruction_when_there_is_none(
    remote_model: FakeModelServer, rule_calls: list[str]
) -> None:
    await facts_of("I am a CFO.", cut(False, None))
    [request] = remote_model.chat_requests
    sent = parse_variables(load_prompt("memory_facts"), prompt_messages(request.json)[1])
    assert sent["instruction_scope"] == "none" and rule_calls == []
