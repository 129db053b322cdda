"""How `artisan chat` / `artisan ask` show what follows a streamed answer."""

from shared.cli.chat import after_answer, citation_line, events
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


def test_sse_lines_become_events() -> None:
    lines = ["event: token", 'data: {"text": "Hi"}', "", ": ping", "event: done", "data: {}", ""]
    assert [(e.event, e.data) for e in events(iter(lines))] == [
        ("token", '{"text": "Hi"}'),
        ("done", "{}"),
    ]


def test_ask_takes_a_persona_attachments_and_json() -> None:
    args = build_parser().parse_args(["ask", "q?", "--attach", "a", "--attach", "b", "--json"])
    assert (args.question, args.persona, args.attach, args.json) == (
        "q?",
        "gunnar",
        ["a", "b"],
        True,
    )
    assert build_parser().parse_args(["chat", "--persona", "vlad"]).persona == "vlad"
