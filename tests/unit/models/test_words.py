"""A file that fails because of its model says so in words (issue 28, part 1), and so does a turn
whose journaling fails: the errors the real openai client raises against the fake model server,
as the file's (or turn's) owner reads them: the
model and the step it was doing, what happened and what to do, never an exception's name, the
endpoint's address or its error body (those stay in the service's log)."""

from collections.abc import Iterator
from uuid import uuid4

import pytest

from shared.config import ModelSettings
from shared.contracts import FileEvent, TurnEvent
from shared.errors import ModelOutputError, ModelUnavailableError, PermanentError
from shared.models.words import file_failure, turn_failure
from shared.pipeline import FileWork, TurnWork
from shared.providers.llm.artisan_cut import LLMCompressor
from shared.providers.llm.schemas import CutAnswer
from shared.providers.remote import OpenAICompatibleChat, OpenAIEmbedder
from tests.fakes.model_server import FakeModelServer

# the answer path's words are tested the same way: a client met afresh, no retries
from tests.unit.chat.test_failure_words import BODY, MODEL, Reply, chat

OFFLINE = "let the offline rules read files"
OFFLINE_JOURNALING = "let the offline rules journal turns"


@pytest.fixture(scope="module")
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer(lambda request: Reply(reply="ok").model_dump_json()) as fake:
        yield fake


async def failure_of_call(model: OpenAICompatibleChat, role: str) -> Exception:
    with pytest.raises(Exception) as failure:
        await model.complete_json(role=role, system="Check.", user="Draft.", schema=Reply)
    return failure.value


def assert_told_plainly(
    told: str, exc: Exception, server: FakeModelServer, work: str = "Reading this file"
) -> None:
    assert type(exc).__name__ not in told and "Error" not in told
    assert "127.0.0.1" not in told and server.base_url not in told and "http" not in told
    assert "gpu-17" not in told and "sk-k" not in told
    assert told.startswith(f"{work} needs the ") and told.endswith(".")


async def test_a_model_that_does_not_answer_names_itself_its_step_and_the_tries(
    server: FakeModelServer,
) -> None:
    model = chat(server)
    server.fail_with(503, body={"error": {"message": BODY}})
    exc = await failure_of_call(model, "chunk")
    told = file_failure(exc, tries=3)  # type: ignore[arg-type]
    assert_told_plainly(told, exc, server)
    assert told.startswith(
        f"Reading this file needs the language model {MODEL} (chunking), and it did not answer"
        " after 3 tries: it may be down or busy. Retry the file in a moment"
    )
    assert "Test connection in Settings" in told and OFFLINE in told
    assert "'The model does'" in told and "ARTISAN_LLM_ROLES=answers" in told


async def test_a_model_too_slow_is_said_to_be_too_slow(server: FakeModelServer) -> None:
    model = chat(server, llm_timeout_seconds=0.3)
    server.delay(1.0)
    exc = await failure_of_call(model, "compress")
    told = file_failure(exc, tries=1)  # type: ignore[arg-type]
    assert_told_plainly(told, exc, server)
    assert f"language model {MODEL} (compressing), and it took too long" in told
    assert "choose a faster model in Settings" in told and OFFLINE in told


async def test_an_answer_in_the_wrong_form_is_said_so(server: FakeModelServer) -> None:
    model = chat(server)
    server.reply_raw(f"I cannot comply. {BODY}", times=2)  # the reply, then the repair's
    exc = await failure_of_call(model, "verify")
    told = file_failure(exc, tries=1)  # type: ignore[arg-type]
    assert_told_plainly(told, exc, server)
    assert f"{MODEL} (verifying), and it answered in a form Artisan could not use." in told


async def test_a_refused_key_sends_the_admin_to_test_connection_first(
    server: FakeModelServer,
) -> None:
    model = chat(server)
    server.fail_with(401, body={"error": {"message": f"bad key sk-k: {BODY}"}})
    exc = await failure_of_call(model, "classify")
    told = file_failure(exc, tries=1)  # type: ignore[arg-type]
    assert_told_plainly(told, exc, server)
    assert f"{MODEL} (classifying), and it could not be used: its service refused" in told
    assert "The admin of this Artisan can check them with Test connection" in told
    assert told.endswith("then retry it.") and "in a moment" not in told


async def test_an_embedding_model_is_no_language_model_and_has_no_offline_rule_offered(
    server: FakeModelServer,
) -> None:
    server.reset()
    settings = {"openai_api_key": "sk-k", "openai_base_url": server.base_url}
    embedder = OpenAIEmbedder(ModelSettings(**settings, llm_max_retries=0))
    server.fail_with(500, body={"error": {"message": BODY}}, times=10)  # its own retries too
    with pytest.raises(ModelUnavailableError) as failure:
        await embedder.embed(["a passage"])
    told = file_failure(failure.value, tries=2)
    assert_told_plainly(told, failure.value, server)
    assert told.startswith(
        "Reading this file needs the embedding model text-embedding-3-small (embedding), and"
        " it did not answer after 2 tries"
    )
    assert OFFLINE not in told and "Test connection in Settings" in told


class _EmptyCuts:
    """A chat model whose cut says nothing at all."""

    provider, model = "fake", MODEL

    async def complete_json(self, **_: object) -> CutAnswer:
        return CutAnswer(chunk_essence="", decision_arc_summary="", salience_score=5)


async def test_an_empty_cut_names_the_model_and_its_step() -> None:
    with pytest.raises(ModelOutputError) as failure:
        await LLMCompressor(_EmptyCuts()).compress("Some text.", "Pricing")  # type: ignore[arg-type]
    told = file_failure(failure.value, tries=1)
    assert f"the language model {MODEL} (compressing), and it answered in a form" in told


async def test_a_turn_whose_facts_model_does_not_answer_says_what_the_turn_keeps(
    server: FakeModelServer,
) -> None:
    model = chat(server)
    server.fail_with(503, body={"error": {"message": BODY}})
    exc = await failure_of_call(model, "memory")
    told = turn_failure(exc, tries=2)  # type: ignore[arg-type]
    assert_told_plainly(told, exc, server, work="Journaling this turn")
    assert told.startswith(
        f"Journaling this turn needs the language model {MODEL} (learning facts), and it did"
        " not answer after 2 tries: it may be down or busy. The turn itself is kept, but"
        " without its journal entry later conversations may not recall it; if turns keep"
        " failing, the admin of this Artisan can check it with Test connection in Settings"
    )
    assert OFFLINE_JOURNALING in told and "ARTISAN_LLM_ROLES=answers" in told
    assert "Retry" not in told  # no one can retry a turn's journaling


async def test_a_turn_refused_by_its_model_sends_the_admin_to_test_connection(
    server: FakeModelServer,
) -> None:
    model = chat(server)
    server.fail_with(401, body={"error": {"message": f"bad key sk-k: {BODY}"}})
    exc = await failure_of_call(model, "compress")
    told = turn_failure(exc, tries=1)  # type: ignore[arg-type]
    assert_told_plainly(told, exc, server, work="Journaling this turn")
    assert f"{MODEL} (compressing), and it could not be used: its service refused" in told
    assert "recall it. The admin of this Artisan can check them with Test connection" in told


def test_only_work_that_fails_on_a_model_is_told_in_these_words() -> None:
    file = FileWork(FileEvent(file_id=uuid4(), user_id=uuid4(), attempt=1))
    turn = TurnWork(TurnEvent(turn_id=uuid4(), user_id=uuid4()))
    failed = ModelUnavailableError(f"the model at http://x/v1: {BODY}", model=MODEL, role="chunk")
    assert file.reason(failed, tries=4).startswith(
        f"Reading this file needs the language model {MODEL} (chunking)"
    )
    cut = ModelOutputError(f"turn_cut_2a from http://x/v1: {BODY}", model=MODEL, role="compress")
    assert turn.reason(cut, tries=1).startswith(
        f"Journaling this turn needs the language model {MODEL} (compressing), and it answered"
        " in a form Artisan could not use."
    )
    # anything else keeps its own message: a PermanentError's is written for people already
    for work in (file, turn):
        assert work.reason(PermanentError("looks like binary data"), 1) == "looks like binary data"
        assert work.reason(RuntimeError("boom"), 4) == "RuntimeError: boom"
