"""`artisan chat` (interactive) and `artisan ask` (one question): streamed answers, citations."""

import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import httpx
from httpx_sse import EventSource

from shared.cli.client import (
    CliError,
    Connection,
    api_error,
    api_key,
    expect_success,
    gateway_url,
    run_command,
)

DEFAULT_PERSONA = "gunnar"
ANSWER_TIMEOUT = httpx.Timeout(10.0, read=300.0)  # tokens may pause while the model thinks


def ask(
    question: str,
    persona: str,
    attachments: Sequence[str],
    as_json: bool,
    conversation: str | None = None,
) -> int:
    return run_command(lambda: _ask(question, persona, attachments, as_json, conversation))


def chat(persona: str, conversation: str | None = None, new: bool = False) -> int:
    return run_command(lambda: _chat(persona, conversation, new))


def _ask(
    question: str,
    persona: str,
    attachments: Sequence[str],
    as_json: bool,
    conversation: str | None,
) -> int:
    with _client() as http:
        if conversation:
            persona = conversation_record(http, conversation)["persona"]
        out = None if as_json else sys.stdout
        done = answer(http, persona, question, attachments, out, conversation_id=conversation)
    if as_json:
        print(json.dumps(done, indent=2, ensure_ascii=False))
    return 0


def _chat(persona: str, conversation: str | None, new: bool) -> int:
    """Talk in the persona's latest conversation (the gateway's choice), a new one, or the one
    named; every answer after the first goes where the first went."""
    with _client() as http:
        where = ""
        if new:
            started = http.post("/v1/conversations", json={"persona": persona.lower()})
            conversation = expect_success(started).json()["id"]
            where = " in a new conversation"
        elif conversation:
            record = conversation_record(http, conversation)
            persona, where = record["persona"], f" in “{record['title']}”"
        name = display_name(http, persona)
        print(f"Talking to {name}{where}. An empty line or Ctrl-D ends the conversation.")
        while True:
            try:
                question = input("\nyou> ").strip()
            except EOFError:
                print()
                return 0
            if not question:
                return 0
            print(f"\n{name}> ", end="", flush=True)
            try:
                done = answer(http, persona, question, (), sys.stdout, conversation_id=conversation)
                conversation = done.get("conversation_id", conversation)
            except CliError as exc:  # one failed answer does not end the conversation
                print(f"\nerror: {exc}", file=sys.stderr)


def _client() -> httpx.Client:
    connection = Connection(gateway_url(), api_key())
    return httpx.Client(base_url=connection.url, headers=connection.headers, timeout=30)


def conversation_record(http: httpx.Client, conversation_id: str) -> dict[str, Any]:
    response = http.get(f"/v1/conversations/{conversation_id}")
    if response.status_code == 404:
        raise CliError(
            f"no conversation {conversation_id}: list yours with"
            " GET /v1/conversations (the web client lists them too)"
        )
    return expect_success(response).json()


def display_name(http: httpx.Client, persona: str) -> str:
    items = expect_success(http.get("/v1/personas")).json()["items"]
    for item in items:
        if item["name"] == persona.lower():
            return item["display_name"]
    names = ", ".join(item["name"] for item in items)
    raise CliError(f"unknown persona {persona!r}: choose one of {names}")


def answer(
    http: httpx.Client,
    persona: str,
    question: str,
    attachments: Sequence[str],
    out: TextIO | None,
    conversation_id: str | None = None,
) -> dict[str, Any]:
    """Stream one answer (tokens written to `out` as they come); returns the `done` payload.
    Without a conversation it goes to the persona's latest (or starts one)."""
    body: dict[str, Any] = {"persona": persona, "message": question, "attachments": [*attachments]}
    if conversation_id:
        body["conversation_id"] = conversation_id
    with http.stream("POST", "/v1/chat", json=body, timeout=ANSWER_TIMEOUT) as response:
        if response.status_code != 200:
            response.read()
            raise CliError(api_error(response))
        for event in EventSource(response).iter_sse():
            data = json.loads(event.data)
            if event.event == "token" and out is not None:
                out.write(data["text"])
                out.flush()
            elif event.event == "done":
                if out is not None:
                    out.write("\n" + "".join(f"{line}\n" for line in after_answer(data)))
                return data
            elif event.event == "error":
                raise CliError(data.get("detail") or "the answer failed")
    raise CliError("the answer stream ended before the answer was complete; try again")


def after_answer(done: dict[str, Any]) -> list[str]:
    """What follows the streamed text: the check's removals, then the sources."""
    lines = []
    if removed := done.get("removed"):
        lines.append(f"(checked against the sources: {len(removed)} unsupported sentence(s)")
        lines[-1] += " removed; the stored answer is:)"
        lines.append(done["answer"])
    if citations := done.get("citations"):
        lines.append("")
        lines.append("Sources:")
        lines.extend(citation_line(citation) for citation in citations)
    return lines


def citation_line(citation: dict[str, Any]) -> str:
    """`[N] filename, title, lines a–b` (a past conversation when there is no file; a memory
    fact: `[N] memory, About you: The user's name is Maya Chen.`)."""
    if citation.get("fact_id"):
        return f"[{citation['ref']}] memory, {citation.get('title', '')}: {citation['snippet']}"
    parts = [citation.get("filename") or "past conversation"]
    if citation.get("title"):
        parts.append(citation["title"])
    start, end = citation.get("line_start"), citation.get("line_end")
    if start is not None:
        parts.append(f"line {start}" if end in (None, start) else f"lines {start}–{end}")
    return f"[{citation['ref']}] " + ", ".join(parts)
