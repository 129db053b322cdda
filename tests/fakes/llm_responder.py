"""A deterministic fake LLM: answers Artisan's prompts with JSON made by the local providers.

`realistic_responder(request_json)` reads a chat-completions request body the way the fake model
server receives it. It tells the prompts apart by the marker line every rendered system message
starts with (`prompt: chunk_1a v1`), reads the variables back out of the user message by turning
the prompt's user template into a regular expression, and answers what a good model would:
local chunking with offsets relative to the given text, local Artisan Cuts, local summaries,
extractive cited chat answers (1A, plain text) and a word-overlap check of them (1B).
1B and 2B calls return what they were given, as a satisfied reviewer does.

`ResponderChat` runs any responder in-process as a `ChatModel` (no HTTP), counting calls and
concurrency; `scripted_responder` and `malformed_then` build responders for failure tests.
"""

import asyncio
import json
import re
import threading
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ValidationError

from shared.domain import REFUSAL
from shared.errors import ModelOutputError
from shared.prompts import MARKER, PLACEHOLDER, Prompt, load_prompt
from shared.providers.base import ModelT
from shared.providers.llm.memory import NO_INSTRUCTION
from shared.providers.local.answer import compose
from shared.providers.local.answer_check import check_answer_text
from shared.providers.local.artisan_cut import artisan_cut
from shared.providers.local.chunking import chunk_text
from shared.providers.local.classify import classify_chunk_text, classify_file_text
from shared.providers.local.memory import facts_in
from shared.providers.local.quotes import best_sentences, sentences_of
from shared.providers.local.summarise import file_summary
from shared.providers.local.summary import section_summary
from shared.providers.local.told import fact_source
from shared.providers.local.turns import turn_cut

Responder = Callable[[dict[str, Any]], str]
Answer = Mapping[str, Any] | Callable[[dict[str, str]], Mapping[str, Any]]


# reading a request


def message_text(message: Mapping[str, Any]) -> str:
    """A message's content, whether a string or a list of text parts."""
    content = message.get("content") or ""
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content if isinstance(part, dict))


def prompt_messages(request_json: Mapping[str, Any]) -> tuple[str, str]:
    """The system message and the first user message; later turns are repair requests."""
    messages = request_json.get("messages", [])
    system = next((message_text(m) for m in messages if m.get("role") == "system"), "")
    user = next((message_text(m) for m in messages if m.get("role") == "user"), "")
    return system, user


def prompt_of(system: str) -> Prompt:
    found = MARKER.match(system)
    if not found:
        raise ValueError(f"no 'prompt: <name> v<n>' marker in the system message {system[:80]!r}")
    return load_prompt(found.group("name"))


def prompt_name(request_json: Mapping[str, Any]) -> str:
    return prompt_of(prompt_messages(request_json)[0]).name


def parse_variables(prompt: Prompt, user: str) -> dict[str, str]:
    """The values the user message was rendered with (the inverse of Prompt.render)."""
    found = _template_pattern(prompt.user_template).fullmatch(user)
    if not found:
        raise ValueError(f"the user message does not follow prompt {prompt.name!r}")
    return found.groupdict()


@lru_cache
def _template_pattern(template: str) -> re.Pattern[str]:
    pattern, seen = "", set()
    for index, part in enumerate(PLACEHOLDER.split(template)):
        if index % 2 == 0:
            pattern += re.escape(part)
        elif part in seen:
            pattern += f"(?P={part})"  # a variable used twice has the same value both times
        else:
            seen.add(part)
            pattern += f"(?P<{part}>.*?)"
    return re.compile(pattern, re.DOTALL)


# the answers a good model would give, from the local providers


def _chunks(values: dict[str, str]) -> dict[str, Any]:
    return {
        "chunks": [
            {"start": s.start, "end": s.end, "title": s.title, "summary": s.summary}
            for s in chunk_text(values["text"])
        ]
    }


def _cut(values: dict[str, str]) -> dict[str, Any]:
    cut = artisan_cut(values["text"], values["title"])
    return {
        "chunk_essence": cut.chunk_essence,
        "decision_arc_summary": cut.decision_arc_summary,
        "salience_score": cut.salience_score,
    }


_SECTION = re.compile(r"^Section \d+: (?P<title>.*)\nSummary: (?P<summary>.*)$", re.MULTILINE)


def _file_summary(values: dict[str, str]) -> dict[str, Any]:
    sections = [(m["title"], m["summary"]) for m in _SECTION.finditer(values["sections"])]
    return {"summary": file_summary(values["filename"], sections)}


_SOURCE = re.compile(r'<source ref="(?P<ref>\d+)">\n(?P<text>.*?)\n</source>', re.DOTALL)


def sources_of(text: str) -> dict[int, str]:
    """The `<source ref="N">` blocks of a chat prompt, by ref, in order."""
    return {int(m["ref"]): m["text"] for m in _SOURCE.finditer(text)}


def _chat_answer(values: dict[str, str]) -> str:
    """Call 1A as a careful model: the best source sentences, each cited, or the refusal."""
    chosen = best_sentences(values["question"], sentences_of(sources_of(values["context"])))
    return compose("", chosen) if chosen else REFUSAL


def _chat_check(values: dict[str, str]) -> dict[str, Any]:
    checked = check_answer_text(values["answer"], sources_of(values["sources"]))
    return {"answer": checked.answer, "removed": checked.removed}


def _memory_facts(values: dict[str, str]) -> dict[str, Any]:
    """Facts a careful model finds, told the turn's instruction scope: never the directive."""
    scope = values["instruction_scope"]
    source = fact_source(values["user_message"], None if scope == NO_INSTRUCTION else scope)
    return {"facts": [fact.model_dump() for fact in facts_in(source)]}


REALISTIC_ANSWERS: dict[str, Callable[[dict[str, str]], Mapping[str, Any] | str]] = {
    "classify": lambda v: {"file_type": classify_file_text(v["text"]), "reason": "local cues"},
    "classify_chunk": lambda v: {"chunk_type": classify_chunk_text(v["text"]), "reason": "cues"},
    "chunk_1a": _chunks,
    "chunk_1b": lambda v: json.loads(v["chunks_json"]),
    "artisan_cut_2a": _cut,
    "artisan_cut_2b": lambda v: json.loads(v["cut_json"]),
    "turn_cut_2a": lambda v: turn_cut(v["user_message"], v["ai_response"], v["persona"]),
    "turn_cut_2b": lambda v: json.loads(v["cut_json"]),
    "summarise_section": lambda v: {"summary": section_summary(v["text"], v["title"])},
    "summarise_file": _file_summary,
    "memory_facts": _memory_facts,
    "connection_test": lambda v: {"reply": "OK"},
    "chat_1a": _chat_answer,
    "chat_1b": _chat_check,
}


def _as_json(answer: Any) -> str:
    if isinstance(answer, str):
        return answer  # a plain-text prompt (chat 1A)
    if isinstance(answer, BaseModel):
        return answer.model_dump_json()
    return json.dumps(answer, ensure_ascii=False)


def realistic_responder(request_json: dict[str, Any]) -> str:
    """The JSON a competent model would answer to any of Artisan's prompts."""
    system, user = prompt_messages(request_json)
    prompt = prompt_of(system)
    return _as_json(REALISTIC_ANSWERS[prompt.name](parse_variables(prompt, user)))


def scripted_responder(
    answers: Mapping[str, Answer], fallback: Responder = realistic_responder
) -> Responder:
    """Answers prompts named in `answers` with a fixed object or a function of the variables,
    and every other prompt with `fallback`."""

    def respond(request_json: dict[str, Any]) -> str:
        system, user = prompt_messages(request_json)
        prompt = prompt_of(system)
        if prompt.name not in answers:
            return fallback(request_json)
        answer = answers[prompt.name]
        if callable(answer):
            answer = answer(parse_variables(prompt, user))
        return _as_json(answer)

    return respond


def malformed_then(
    responder: Responder, failures: int = 1, garbage: str = '{"chunks": [ oops'
) -> Responder:
    """A responder whose first `failures` answers are invalid JSON, then `responder`'s."""
    lock = threading.Lock()  # the fake server answers from several threads
    remaining = [failures]

    def respond(request_json: dict[str, Any]) -> str:
        with lock:
            failing = remaining[0] > 0
            remaining[0] -= 1
        return garbage if failing else responder(request_json)

    return respond


# an in-process ChatModel over a responder


@dataclass(frozen=True)
class ChatCall:
    role: str
    prompt: str
    system: str
    user: str


class ResponderChat:
    """A ChatModel that asks a responder, like the transport asks a server, minus HTTP.

    Invalid answers raise ModelOutputError, as the transport does after its repair attempt.
    `delay` simulates model latency; `max_in_flight` counts concurrent calls per prompt.
    """

    provider = "fake"

    def __init__(self, responder: Responder, *, delay: float = 0.0, model: str = "fake-llm"):
        self.responder = responder
        self.delay = delay
        self.model = model
        self.calls: list[ChatCall] = []
        self.in_flight: Counter[str] = Counter()
        self.max_in_flight: Counter[str] = Counter()

    async def complete_json(
        self,
        *,
        role: str,
        system: str,
        user: str,
        schema: type[ModelT],
        max_tokens: int | None = None,
    ) -> ModelT:
        name = prompt_of(system).name
        self.calls.append(ChatCall(role, name, system, user))
        self.in_flight[name] += 1
        self.max_in_flight[name] = max(self.max_in_flight[name], self.in_flight[name])
        try:
            await asyncio.sleep(self.delay)
            content = self.responder(chat_request(system, user, self.model))
        finally:
            self.in_flight[name] -= 1
        try:
            return schema.model_validate_json(content)
        except ValidationError as error:
            raise ModelOutputError(f"{name}: invalid answer {content[:80]!r}: {error}") from error

    def prompts(self) -> list[str]:
        return [call.prompt for call in self.calls]


def chat_request(system: str, user: str, model: str = "fake-llm") -> dict[str, Any]:
    """A chat-completions request body as the openai client would send it."""
    return {
        "model": model,
        "temperature": 0,
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
    }
