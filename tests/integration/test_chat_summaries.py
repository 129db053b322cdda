"""Summary questions through the real system (seed 003 path B): answered from the stored file
and section summaries, each sentence once, citations quoting the summarised chunks exactly."""

import httpx
import pytest

from shared.domain import REFUSAL
from shared.text.citations import split_claims
from tests.integration.test_chat import HIRING_PLAN, OTHER_PRICING, PRICING_MEMO, chat, ready_file

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_summary_answer_quotes_the_stored_summaries_once_each(
    api_client: httpx.AsyncClient,
) -> None:
    memo = await ready_file(api_client, "pricing.md", PRICING_MEMO)
    await ready_file(api_client, "hiring.md", HIRING_PLAN)
    _, done = await chat(
        api_client, persona="gunnar", message="Summarise this document", attachments=[memo["id"]]
    )
    assert not done["refused"], done
    chunks = (await api_client.get(f"/v1/files/{memo['id']}/chunks")).json()["items"]
    summaries = " ".join([memo["summary"], *(c["summary"] or "" for c in chunks)])
    claims = [c for c in split_claims(done["answer"]) if c.refs]
    statements = [" ".join(claim.statement.split()) for claim in claims]
    assert statements and len(statements) == len(set(statements)), done["answer"]
    for statement in statements:
        assert statement in " ".join(summaries.split()), statement
    texts = {c["id"]: c["text"] for c in chunks}
    assert done["citations"]
    for citation in done["citations"]:
        assert citation["file_id"] == memo["id"]
        assert citation["snippet"] and citation["snippet"] in texts[citation["chunk_id"]]


async def test_a_summary_of_something_no_file_is_about_gets_the_refusal(
    api_client: httpx.AsyncClient,
) -> None:
    memo = await ready_file(api_client, "pricing.md", PRICING_MEMO)
    hiring = await ready_file(api_client, "hiring.md", HIRING_PLAN)
    question = "Give me an overview of our Mars colony budget"
    _, done = await chat(api_client, persona="gunnar", message=question)
    assert (done["answer"], done["refused"], done["citations"]) == (REFUSAL, True, [])

    _, done = await chat(api_client, persona="gunnar", message="Give me an overview of hiring")
    assert not done["refused"] and done["citations"], done
    assert {c["file_id"] for c in done["citations"]} == {hiring["id"]}

    for question in ("What is this about?", "Summarise this document"):
        _, done = await chat(
            api_client, persona="kirby", message=question, attachments=[memo["id"]]
        )
        assert not done["refused"], (question, done)
        assert {c["file_id"] for c in done["citations"]} == {memo["id"]}
    _, done = await chat(api_client, persona="kirby", message="Summarise my files")
    assert not done["refused"] and done["citations"], done


async def test_summarise_my_files_quotes_every_file(api_client: httpx.AsyncClient) -> None:
    uploaded = [
        await ready_file(api_client, "pricing.md", PRICING_MEMO),
        await ready_file(api_client, "hiring.md", HIRING_PLAN),
        await ready_file(api_client, "offsite.md", OTHER_PRICING),
    ]
    _, done = await chat(api_client, persona="kirby", message="Summarise my files")
    assert not done["refused"], done
    assert {c["file_id"] for c in done["citations"]} == {f["id"] for f in uploaded}, done
    statements = [c.statement for c in split_claims(done["answer"]) if c.refs]
    assert len(statements) == len(set(statements)), done["answer"]
