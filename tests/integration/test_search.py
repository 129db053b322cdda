"""GET /v1/search: hybrid retrieval over the user's own chunks, citable to the character."""

import httpx
import pytest

from tests.conftest import ClientFactory
from tests.helpers import upload, wait_for_status

pytestmark = pytest.mark.asyncio(loop_scope="session")

PRICING = "# Pricing\n\nWe moved from per-seat pricing to usage tiers for predictable bills.\n"
HIRING = "# Hiring\n\nWe will hire two backend engineers in Lisbon before the third quarter.\n"


async def test_search_ranks_the_matching_chunk_first_with_an_exact_snippet(
    api_client: httpx.AsyncClient,
) -> None:
    for name, text in (("pricing.md", PRICING), ("hiring.md", HIRING)):
        await wait_for_status(api_client, (await upload(api_client, name, text))["id"], "ready")
    response = await api_client.get("/v1/search", params={"q": "engineers in Lisbon"})
    assert response.status_code == 200, response.text
    hits = response.json()["items"]
    assert hits[0]["filename"] == "hiring.md"
    assert hits[0]["ref"] == 1 and hits[0]["score"] > 0
    chunk = next(
        c
        for c in (await api_client.get(f"/v1/files/{hits[0]['file_id']}/chunks")).json()["items"]
        if c["id"] == hits[0]["chunk_id"]
    )
    assert hits[0]["snippet"] in chunk["text"]
    assert "Lisbon" in hits[0]["snippet"]
    assert (hits[0]["char_start"], hits[0]["line_start"]) == (chunk["char_start"], 1)


async def test_search_never_returns_another_users_chunks(make_client: ClientFactory) -> None:
    alice, bob = await make_client(), await make_client()
    record = await upload(alice, "secret.md", "# Secret\n\nThe acquisition target is Zyxcorp.\n")
    await wait_for_status(alice, record["id"], "ready")
    assert (await alice.get("/v1/search", params={"q": "Zyxcorp"})).json()["items"]
    assert (await bob.get("/v1/search", params={"q": "Zyxcorp"})).json()["items"] == []


async def test_an_empty_query_is_a_clear_422(api_client: httpx.AsyncClient) -> None:
    response = await api_client.get("/v1/search", params={"q": ""})
    assert response.status_code == 422
    assert "q" in response.json()["detail"]
