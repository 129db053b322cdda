"""How `artisan chat` / `artisan ask` show what follows a streamed answer."""

import io
import json

import httpx
import pytest

from shared.cli.chat import after_answer, answer, citation_line
from shared.cli.client import CliError
from shared.cli.main import build_parser


def test_a_citation_reads_as_file_title_and_lines() -> None:
    citation = {"ref": 2, "filename": "plan.md", "title": "Budget", "line_start": 3, "line_end": 9}
    assert citation_line(citation) == "[2] plan.md, Budget, lines 3–9"
    journal = {"ref": 1, "filename": "", "title": "Chose usage tiers", "line_start": None}
    assert citation_line(journal) == "[1] past conversation, Chose usage tiers"


def test_removed_sentences_and_sources_follow_the_answer() -> None:
    done = {
        "answer": "Kept. [Ref: 1]",
        "removed": ["Invented."],
        "citations": [{"ref": 1, "filename": "a.md", "title": "", "line_start": 1, "line_end": 1}],
    }
    assert after_answer(done) == [
        "(checked against the sources: 1 unsupported sentence(s) removed; the stored answer is:)",
        "Kept. [Ref: 1]",
        "",
        "Sources:",
        "[1] a.md, line 1",
    ]
    assert after_answer({"answer": "x", "removed": [], "citations": []}) == []


def streaming(body: bytes) -> httpx.Client:
    """A client whose POST /v1/chat answers with `body` as an event stream."""

    def gateway(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    return httpx.Client(transport=httpx.MockTransport(gateway), base_url="http://x")


def test_tokens_are_written_as_they_come_and_done_ends_the_answer() -> None:
    done = {"answer": "Hi there", "removed": [], "citations": []}
    body = (
        b'event: token\ndata: {"text": "Hi"}\n\n: ping\n\n'
        b'event: token\ndata: {"text": " there"}\n\n'
        b"event: done\ndata: " + json.dumps(done).encode() + b"\n\n"
    )
    out = io.StringIO()
    assert answer(streaming(body), "gunnar", "q?", [], out) == done
    assert out.getvalue() == "Hi there\n"


def test_an_error_event_or_a_cut_stream_is_an_error() -> None:
    failed = b'event: token\ndata: {"text": "Hi"}\n\nevent: error\ndata: {"detail": "no model"}\n\n'
    with pytest.raises(CliError, match="no model"):
        answer(streaming(failed), "gunnar", "q?", [], None)
    with pytest.raises(CliError, match="ended before the answer was complete"):
        answer(streaming(b'event: token\ndata: {"text": "Hi"}\n\n'), "gunnar", "q?", [], None)


def test_ask_takes_a_persona_attachments_and_json() -> None:
    args = build_parser().parse_args(["ask", "q?", "--attach", "a", "--attach", "b", "--json"])
    assert (args.question, args.persona, args.attach, args.json) == (
        "q?",
        "gunnar",
        ["a", "b"],
        True,
    )
    assert build_parser().parse_args(["chat", "--persona", "vlad"]).persona == "vlad"


def test_an_answer_in_a_conversation_names_it_and_without_one_leaves_it_to_the_gateway() -> None:
    sent: list[dict] = []
    done = {"answer": "Hi", "removed": [], "citations": [], "conversation_id": "c1"}

    def gateway(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        body = b"event: done\ndata: " + json.dumps(done).encode() + b"\n\n"
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    http = httpx.Client(transport=httpx.MockTransport(gateway), base_url="http://x")
    answer(http, "vlad", "q?", [], None, conversation_id="c1")
    answer(http, "vlad", "q?", [], None)
    assert sent[0]["conversation_id"] == "c1" and "conversation_id" not in sent[1]


def test_chat_starts_a_new_conversation_or_goes_on_with_one() -> None:
    assert build_parser().parse_args(["chat", "--new"]).new is True
    args = build_parser().parse_args(["chat", "--conversation", "c1"])
    assert (args.conversation, args.new) == ("c1", False)
    with pytest.raises(SystemExit):  # one or the other
        build_parser().parse_args(["chat", "--new", "--conversation", "c1"])
    assert build_parser().parse_args(["ask", "q?", "--conversation", "c1"]).conversation == "c1"
