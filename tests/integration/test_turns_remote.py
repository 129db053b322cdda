"""Turns into the journal through remote models: the real openai and voyageai clients against
the local wire-format server; a model that leaks a secret is redacted or refused, and a model
that keeps answering nonsense fails the turn with the reason."""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shared.launcher.stack import Stack
from tests.fakes.llm_responder import REALISTIC_ANSWERS, scripted_responder
from tests.fakes.model_server import FakeModelServer
from tests.helpers import client_for_new_user, import_turns, own_stack, wait_journaled

pytestmark = pytest.mark.asyncio(loop_scope="session")
LEAKED = "sk-proj-Zx81Kq0Pw3Lm7Nb2Vc5Tr9Yu"


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
        "ARTISAN_LLM_MAX_RETRIES": "1",
        "ARTISAN_VOYAGE_API_KEY": "test-key",
        "ARTISAN_EMBED_PROVIDER": "voyage",  # the suite pins "local" (tests/conftest.py)
        "ARTISAN_VOYAGE_BASE_URL": model_server.base_url,
        "ARTISAN_MAX_DELIVERIES": "2",
        "ARTISAN_RETRY_DELAY_SECONDS": "0.2",
    }
    with own_stack(tmp_path_factory.mktemp("remote-turns"), env, pgdata=pgdata_template) as stack:
        yield stack


@pytest.fixture
async def client(remote_system: Stack) -> AsyncIterator[httpx.AsyncClient]:
    async with await client_for_new_user(remote_system, "remote-turns") as client:
        yield client


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


async def test_a_model_that_keeps_answering_nonsense_fails_the_turn_with_the_reason(
    client: httpx.AsyncClient,
) -> None:
    [record] = await import_turns(
        client, [{"persona": "kirby", "user_message": "BROKEN facts", "ai_response": "Hm."}]
    )
    with pytest.raises(AssertionError, match="failed to journal"):
        await wait_journaled(client, [record["id"]], timeout=60)
    turn = (await client.get(f"/v1/turns/{record['id']}")).json()
    assert turn["journal_status"] == "failed"
    assert "memory call with invalid JSON" in turn["journal_error"]
    assert (await client.get("/v1/journal")).json()["items"] == []
