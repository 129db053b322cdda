"""The pipeline through remote models: the real openai and voyageai clients talk to a local
server that speaks their wire formats, for every model-driven stage of every service. Turns go
into the journal through them too: a model that leaks a secret is redacted or refused, and a
model that keeps answering nonsense or does not answer fails the turn, saying so in words."""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.launcher.stack import Stack
from tests.fakes.llm_responder import REALISTIC_ANSWERS, prompt_of, scripted_responder
from tests.fakes.model_server import FakeModelServer
from tests.fixtures import documents
from tests.fixtures.transcripts import interview_transcript, turn_offsets
from tests.helpers import (
    assert_exact_coverage,
    client_for_new_user,
    import_turns,
    own_stack,
    upload,
    wait_for_status,
    wait_journaled,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")
LEAKED = "sk-proj-Zx81Kq0Pw3Lm7Nb2Vc5Tr9Yu"
POD_TROUBLE = "upstream pod gpu-17.internal overloaded"  # a provider's own words


def _leaky_cut(v: dict[str, str]) -> dict[str, Any]:
    """A model that puts a key into the cut (as if reassembling one from the conversation)."""
    cut = dict(REALISTIC_ANSWERS["turn_cut_2a"](v))
    if "LEAK" in v["user_message"]:
        cut["decision_arc_summary"] = f"Deploy keys: boss shares key {LEAKED} for the rollout"
        cut["boss_essence"] = f"Boss shares the key {LEAKED}."
    return cut


def _facts(v: dict[str, str]) -> dict[str, Any]:
    if "BROKEN" in v["user_message"]:
        return {"facts": "I could not find any"}  # fails validation, and again after repair
    answer = dict(REALISTIC_ANSWERS["memory_facts"](v))
    if "LEAK" in v["user_message"]:
        leak = {"kind": "user", "fact": f"The user's API key is {LEAKED}.", "confidence": 0.99}
        answer["facts"] = [*answer["facts"], leak]
    return answer


@pytest.fixture(scope="module")
def model_server() -> Iterator[FakeModelServer]:
    """Realistic answers, but for the turns' cuts and facts that leak or break on cue."""
    responder = scripted_responder(
        {"turn_cut_2a": _leaky_cut, "turn_cut_2b": _leaky_cut, "memory_facts": _facts}
    )
    with FakeModelServer(responder) as server:
        yield server


@pytest.fixture(scope="module")
def remote_system(
    tmp_path_factory: pytest.TempPathFactory, pgdata_template: Path, model_server: FakeModelServer
) -> Iterator[Stack]:
    env = {
        "ARTISAN_LLM_BASE_URL": model_server.base_url,
        "ARTISAN_LLM_API_KEY": "test-key",
        "ARTISAN_LLM_TIMEOUT_SECONDS": "1.5",
        "ARTISAN_LLM_MAX_RETRIES": "1",
        "ARTISAN_VOYAGE_API_KEY": "test-key",
        "ARTISAN_EMBED_PROVIDER": "voyage",  # the suite pins "local" (tests/conftest.py)
        "ARTISAN_VOYAGE_BASE_URL": model_server.base_url,
        "ARTISAN_MAX_DELIVERIES": "2",
        "ARTISAN_RETRY_DELAY_SECONDS": "0.2",
    }
    with own_stack(
        tmp_path_factory.mktemp("remote"), env, compressors=2, pgdata=pgdata_template
    ) as stack:
        yield stack


@pytest.fixture
async def client(remote_system: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with await client_for_new_user(remote_system, "remote") as client:
        yield client


async def test_a_transcript_goes_to_ready_through_remote_models(
    client: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    text = interview_transcript()
    record = await upload(client, "ACD179.md", text)
    ready = await wait_for_status(client, record["id"], "ready", timeout=90)
    content = (await client.get(f"/v1/files/{record['id']}/content")).text
    chunks = (await client.get(f"/v1/files/{record['id']}/chunks")).json()["items"]
    assert_exact_coverage(content, chunks)
    assert {c["char_start"] for c in chunks} <= set(turn_offsets(content)), "cuts at speaker turns"
    assert ready["summary"] and ready["file_type"] == "strategic"
    calls = (await client.get(f"/v1/files/{record['id']}/model-calls")).json()
    by_role = {(c["role"], c["provider"]) for c in calls["items"]}
    for role in ("classify", "chunk", "compress", "verify", "summarise"):
        assert (role, "openai-compatible") in by_role, role
    assert ("embed", "voyage") in by_role
    assert calls["totals"]["cost_usd"] > 0
    assert all(c["prompt_tokens"] > 0 for c in calls["items"])
    assert len([c for c in calls["items"] if c["role"] == "chunk"]) == 8  # 4 windows × 1A + 1B


async def test_a_malformed_answer_is_repaired(
    client: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    model_server.reply_raw('{"file_type": "strateg', times=1)
    record = await upload(client, "repair.md", documents.markdown() + "\nunique: repair\n")
    await wait_for_status(client, record["id"], "ready", timeout=60)
    calls = (await client.get(f"/v1/files/{record['id']}/model-calls")).json()["items"]
    assert [c["outcome"] for c in calls if c["role"] == "classify"][:2] == ["invalid", "ok"]


async def test_a_file_type_that_stays_malformed_is_the_offline_rules(
    client: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    """Classification falls back to the offline rule (the same kind of answer), and says so."""
    model_server.reply_raw("not json at all", times=2)
    record = await upload(client, "broken.md", documents.markdown() + "\nunique: broken\n")
    ready = await wait_for_status(client, record["id"], "ready", timeout=60)
    assert ready["file_type"] == "strategic"
    calls = (await client.get(f"/v1/files/{record['id']}/model-calls")).json()["items"]
    classify = [(c["provider"], c["outcome"]) for c in calls if c["role"] == "classify"]
    assert classify == [
        ("openai-compatible", "invalid"),
        ("openai-compatible", "invalid"),
        ("local", "fallback"),
    ]


async def test_an_artisan_cut_that_stays_malformed_fails_the_file_clearly(
    client: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    """No offline rule stands in for the model's cut: the file fails, naming the call."""
    answers = model_server.responder
    model_server.responder = lambda request: (
        "not json at all" if _prompt(request) == "artisan_cut_2a" else answers(request)
    )
    try:
        record = await upload(client, "uncut.md", documents.markdown() + "\nunique: uncut\n")
        failed = await wait_for_status(client, record["id"], "failed", timeout=60)
    finally:
        model_server.responder = answers
    message = failed["error_message"]
    model = await _model_of(client, record["id"], "compress")
    assert f"needs the language model {model} (compressing), and it answered in a form" in message
    _assert_told_plainly(message, model_server)


def _prompt(request: dict[str, Any]) -> str:
    return prompt_of(request["messages"][0]["content"]).name


async def test_429_with_retry_after_is_honoured(
    client: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    model_server.fail_with(429, headers={"Retry-After": "1"})
    before = len(model_server.requests)
    record = await upload(client, "busy.md", documents.markdown() + "\nunique: busy\n")
    await wait_for_status(client, record["id"], "ready", timeout=60)
    first, second = model_server.requests[before : before + 2]
    assert second.received - first.received >= 0.9


async def test_a_model_that_never_answers_in_time_fails_the_file_clearly(
    client: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    """Past its deadline a call is one attempt: classification and chunking fall back to the
    offline rules, the cut has none and fails the file, naming the model and what to do."""
    model_server.delay(4, times=3)
    try:
        record = await upload(client, "slow.md", documents.markdown() + "\nunique: slow\n")
        failed = await wait_for_status(client, record["id"], "failed", timeout=60)
    finally:
        model_server.reset()  # no delay left for the next test
    message = failed["error_message"]
    model = await _model_of(client, record["id"], "compress")
    assert f"language model {model} (compressing), and it took too long" in message, message
    assert "choose a faster model" in message and "ARTISAN_LLM_ROLES=answers" in message
    _assert_told_plainly(message, model_server)


async def test_a_model_that_does_not_answer_fails_the_file_in_words(
    client: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    """Every try of the classification (2 deliveries, each with the client's own retry) meets a
    model that is down: the file says which model, doing what, and what to do about it."""
    model_server.fail_with(503, body={"error": {"message": f"{POD_TROUBLE} (trace 9f3e)"}}, times=4)
    try:
        record = await upload(client, "down.md", documents.markdown() + "\nunique: down\n")
        failed = await wait_for_status(client, record["id"], "failed", timeout=60)
    finally:
        model_server.reset()
    message = failed["error_message"]
    model = await _model_of(client, record["id"], "classify")
    assert message.startswith(
        f"Reading this file needs the language model {model} (classifying), and it did not"
        " answer after 2 tries: it may be down or busy. Retry the file in a moment"
    ), message
    assert "Test connection in Settings" in message and "ARTISAN_LLM_ROLES=answers" in message
    _assert_told_plainly(message, model_server)


async def _model_of(client: httpx.AsyncClient, file_id: str, role: str) -> str:
    """The model the file's `role` calls went to, as its model-call records name it."""
    calls = (await client.get(f"/v1/files/{file_id}/model-calls")).json()["items"]
    [model] = {c["model"] for c in calls if c["role"] == role}
    return str(model)


def _assert_told_plainly(message: str, model_server: FakeModelServer) -> None:
    """A failure names no exception, no endpoint and none of the provider's words."""
    assert "Error" not in message and "http" not in message, message
    assert model_server.base_url not in message and "127.0.0.1" not in message
    assert POD_TROUBLE not in message and "_2a" not in message


async def test_turns_are_journaled_through_remote_models(client: httpx.AsyncClient) -> None:
    records = await import_turns(
        client,
        [
            {
                "persona": "gunnar",
                "user_message": "Gunnar, don't use sports analogies.",
                "ai_response": "Understood, no sports analogies from now on.",
            },
            {
                "persona": "vlad",
                "user_message": "I am the head of sales at Acme. LEAK ahead.",
                "ai_response": "Noted.",
            },
        ],
    )
    await wait_journaled(client, [r["id"] for r in records], timeout=90)
    [instruction] = (await client.get("/v1/instructions")).json()["items"]
    assert instruction["instruction_scope"] == "gunnar"

    everything = " ".join(
        [
            (await client.get("/v1/journal")).text,
            (await client.get("/v1/memory")).text,
            (await client.get("/v1/memory/export")).text,
        ]
    )
    assert LEAKED not in everything
    assert "[redacted API key]" in everything  # the cut kept its sense, minus the key
    facts = [f["fact"] for f in (await client.get("/v1/memory")).json()["items"]]
    # the leaking fact was refused
    assert sorted(facts) == [
        "The user is the head of sales at Acme.",
        "The user's company is called Acme.",
    ]


async def test_a_model_that_keeps_answering_nonsense_fails_the_turn_in_words(
    client: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    message = await _failed_journaling(client, "BROKEN facts")
    model = model_server.chat_requests[-1].json["model"]
    assert message.startswith(
        f"Journaling this turn needs the language model {model} (learning facts), and it"
        " answered in a form Artisan could not use. The turn itself is kept"
    ), message
    _assert_told_plainly(message, model_server)
    assert (await client.get("/v1/journal")).json()["items"] == []


async def test_a_model_that_does_not_answer_fails_the_turn_in_words(
    client: httpx.AsyncClient, model_server: FakeModelServer
) -> None:
    """Every try of the turn's cut (2 deliveries, each with the client's own retry) fails."""
    model_server.fail_with(503, body={"error": {"message": f"{POD_TROUBLE} (trace 9f3e)"}}, times=4)
    try:
        message = await _failed_journaling(client, "Shall we hire in Q3?")
        model = model_server.chat_requests[-1].json["model"]
    finally:
        model_server.reset()
    assert message.startswith(
        f"Journaling this turn needs the language model {model} (compressing), and it did not"
        " answer after 2 tries: it may be down or busy. The turn itself is kept"
    ), message
    assert "Test connection in Settings" in message and "ARTISAN_LLM_ROLES=answers" in message
    _assert_told_plainly(message, model_server)


async def _failed_journaling(client: httpx.AsyncClient, user_message: str) -> str:
    """Import a turn, see its journaling fail, and return the reason the turn shows."""
    turn = {"persona": "kirby", "user_message": user_message, "ai_response": "Hm."}
    [record] = await import_turns(client, [turn])
    with pytest.raises(AssertionError, match="failed to journal"):
        await wait_journaled(client, [record["id"]], timeout=60)
    failed = (await client.get(f"/v1/turns/{record['id']}")).json()
    assert failed["journal_status"] == "failed"
    return str(failed["journal_error"])
