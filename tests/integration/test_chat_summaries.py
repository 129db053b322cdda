"""Summary questions through the real system (seed 003 path B): answered from the stored file
and section summaries, each sentence once, citations quoting the summarised chunks exactly."""

import httpx
import pytest

from shared.providers.local.answer_check import split_claims
from tests.integration.test_chat import HIRING_PLAN, PRICING_MEMO, chat, ready_file

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
