"""An API caller's own earlier messages (the OpenAI-compatible API: a client sends the whole chat
each time) as the context of one answer.

They replace P1: the caller, not a stored conversation, says what was just said. User and
assistant messages pair into turns, rendered as P1 renders stored ones; only the last
`recent_turns` of them enter, like P1. A system (or developer) message is an instruction for this
answer alone: it enters P3 ahead of the standing instructions and is never stored as one. All of
it is redacted first, as the question is, since it goes to the model too.

The caller's earlier turns were answered through the API too, so they are stored, and journaled:
a caller's turn whose question matches a stored one takes that turn's id, so that its Artisan
Cut does not enter P4 (or P5) as well — nothing enters twice.
"""

import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from uuid import UUID

from services.context.budget import Candidate, SectionPlan
from shared.secrets import redact
from shared.text.citations import without_ref_markers

CALLER_NAMESPACE = uuid.UUID("0b6c8f52-41d7-4f0e-a7a5-3c1d2b9e6a10")  # ids: nothing enters twice
INSTRUCTION_ROLES = frozenset({"system", "developer"})


@dataclass
class CallerTurn:
    question: str = ""
    answer: str = ""


def caller_turns(messages: list[tuple[str, str]]) -> list[CallerTurn]:
    """User and assistant messages, oldest first, paired into turns; an answer with no question
    before it (a greeting the client shows first) is a turn of its own."""
    turns: list[CallerTurn] = []
    for role, text in messages:
        if role == "user":
            turns.append(CallerTurn(question=text))
        elif role == "assistant":
            if not turns or turns[-1].answer:
                turns.append(CallerTurn())
            turns[-1].answer = text
    return turns


def turn_text(turn: CallerTurn, persona: str) -> str:
    """As P1 renders a stored turn, without its old citation markers (their numbers were that
    answer's, not this one's); a side the turn lacks is left out, not shown empty."""
    lines = [f"[earlier in this chat · {persona}]"]
    if turn.question:
        lines.append(f"User: {without_ref_markers(redact(turn.question).text)}")
    if turn.answer:
        lines.append(f"{persona}: {without_ref_markers(redact(turn.answer).text)}")
    return "\n".join(lines)


def _candidate_id(kind: str, index: int, text: str) -> uuid.UUID:
    return uuid.uuid5(CALLER_NAMESPACE, f"{kind}:{index}:{text}")


def recent_candidates(
    messages: list[tuple[str, str]],
    persona: str,
    limit: int,
    stored: Sequence[tuple[str, UUID]] = (),
) -> list[Candidate]:
    """P1: the last `limit` of the caller's turns, oldest first, each cut to fit if need be; one
    that matches a `stored` turn ((question, id), oldest first) by its question has its id."""
    turns = caller_turns(messages)[-limit:] if limit > 0 else []
    ids = _stored_ids(turns, stored)
    candidates = []
    for index, turn in enumerate(turns):
        text = turn_text(turn, persona)
        turn_id = ids.get(index) or _candidate_id("turn", index, text)
        candidates.append(Candidate("turn", turn_id, text, cuttable=True))
    return candidates


def _stored_ids(turns: list[CallerTurn], stored: Sequence[tuple[str, UUID]]) -> dict[int, UUID]:
    """By the caller's turn's index, the stored turn it is: newest with newest, each stored turn
    matched once (the same question asked twice is two turns)."""
    by_question: dict[str, list[UUID]] = defaultdict(list)
    for question, turn_id in stored:
        by_question[question].append(turn_id)
    ids = {}
    for index in range(len(turns) - 1, -1, -1):
        same = by_question.get(redact(turns[index].question).text)
        if same:
            ids[index] = same.pop()
    return ids


def instruction_candidates(messages: list[tuple[str, str]]) -> list[Candidate]:
    """The caller's system and developer messages, in order, as this answer's instructions."""
    said = [text for role, text in messages if role in INSTRUCTION_ROLES and text.strip()]
    texts = [f"Instruction for this answer: {redact(text).text}" for text in said]
    return [
        Candidate("instruction", _candidate_id("instruction", i, text), text)
        for i, text in enumerate(texts)
    ]


def with_caller_messages(
    plans: list[SectionPlan],
    messages: list[tuple[str, str]],
    persona: str,
    limit: int,
    stored: Sequence[tuple[str, UUID]] = (),
) -> None:
    """P1 becomes the caller's turns; the caller's instructions lead P3's."""
    for plan in plans:
        if plan.name == "recent_turns":
            plan.candidates = recent_candidates(messages, persona, limit, stored)
        elif plan.name == "instructions":
            plan.candidates = instruction_candidates(messages) + plan.candidates
