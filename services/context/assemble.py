"""The context of a chat turn (seed 002), assembled from the database under the token cap.

P1 the last `recent_turns` turns of the conversation asked in, in full (a turn too long for
the budget is cut with an ellipsis) — or, when the request brings the caller's own earlier
messages (the OpenAI-compatible API), the last of those (caller_messages.py) · P2 starred turns ·
P3 instructions scoped global or to the persona, then the user's memory facts · P4 the last
`journal_recent` journal entries as Artisan Cuts · P5, only when the journal holds more than
`journal_recent` entries, the `journal_recalled` turns that best match the question by what they
say and mean, weighted by salience (recall.py), excluding everything P1-P4 hold and every
instruction · then file context (seed 003). P2-P5 span every conversation. A persona never sees
a turn that is another persona's instruction, in any section. Budget rules: budget.py.
"""

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import asyncpg

from services.context import render
from services.context.budget import Candidate, Filled, SectionPlan, fill
from services.context.caller_messages import with_caller_messages
from services.context.files import attachment_candidates, question_files
from services.context.hybrid_search import TermStats
from services.context.intent import is_summary_question
from services.context.recall import recalled_candidates
from services.context.relevance import lexemes, share_of_terms
from services.context.retrieval import question_vector
from shared.config import ChatSettings, chat_settings, model_settings
from shared.contracts import ContextBundle, ContextRequest
from shared.db import context as queries

JOURNAL_KINDS = ("turn", "journal")
Lexemes = dict[str, frozenset[str]]  # a text's lexemes, by text
REMEMBERED_CUTS = 5_000  # journal cuts whose rendered text is kept (see cut_text)
# the stored turns a caller's own earlier turns are looked for in: an API client's chats share
# one conversation, so a chat's turns need not be the very last ones
CALLER_MATCHES = 50


@dataclass
class Conversation:
    recent: list[asyncpg.Record]
    starred: list[asyncpg.Record]
    instructions: list[asyncpg.Record]
    facts: list[asyncpg.Record]
    journal: list[asyncpg.Record]
    count: int


async def read_conversation(
    conn: asyncpg.Connection, request: ContextRequest, settings: ChatSettings
) -> Conversation:
    user, persona = request.user_id, request.persona
    return Conversation(
        recent=await _recent_turns(conn, request, settings),
        starred=await queries.starred_turns(conn, user_id=user, persona=persona),
        instructions=await queries.instructions(conn, user_id=user, persona=persona),
        facts=await queries.memory_facts(conn, user_id=user),
        journal=await queries.recent_journal(conn, user_id=user, limit=settings.journal_recent),
        count=await queries.journal_count(conn, user_id=user),
    )


async def _recent_turns(
    conn: asyncpg.Connection, request: ContextRequest, settings: ChatSettings
) -> list[asyncpg.Record]:
    """P1's turns; for a caller who says what was just said, the stored turns theirs may be
    (with_caller_messages gives a match its id)."""
    return await queries.recent_turns(
        conn,
        user_id=request.user_id,
        persona=request.persona,
        conversation_id=request.conversation_id,
        limit=settings.recent_turns if request.recent is None else CALLER_MATCHES,
        exclude=request.exclude_turn_id,
    )


def cut_text(entry: render.Row) -> str:
    """render.cut_text, remembered: P4's hundred entries come back question after question,
    and rendering each costs a date format and three regex passes."""
    return _remembered_cut_text(tuple(entry.items()))


@lru_cache(maxsize=REMEMBERED_CUTS)
def _remembered_cut_text(fields: tuple[tuple[str, object], ...]) -> str:
    return render.cut_text(dict(fields))


def conversation_plans(conversation: Conversation, query: str) -> list[SectionPlan]:
    """P1-P4 as the budget will fill them (P5 is added once they are known)."""
    recent = [
        Candidate("turn", t["id"], render.turn_text(t), t["created_at"], cuttable=True)
        for t in conversation.recent
    ]
    starred = [
        Candidate(
            "turn",
            t["id"],
            render.turn_text(t),
            t["created_at"],
            citation=render.starred_citation(t, t if t["turn_id"] else None, query),
        )
        for t in conversation.starred
    ]
    instructions = [  # standing rules: in P3 even while their turn is also one of P1's
        Candidate(
            "instruction",
            e["turn_id"],
            render.instruction_text(e),
            e["created_at"],
            key=("instruction", e["turn_id"]),
        )
        for e in conversation.instructions
    ]
    facts = [  # citable: a question about the user or the company is answered from them
        Candidate(
            "memory_fact",
            f["id"],
            render.fact_text(f),
            f["created_at"],
            citation=render.fact_citation(f),
        )
        for f in conversation.facts
    ]
    journal = [
        Candidate(
            "journal",
            e["turn_id"],
            cut_text(e),
            e["created_at"],
            citation=render.journal_citation(e, query),
        )
        for e in conversation.journal
        if not e["is_instruction"]  # in scope: P3 has it; out of scope: it must never enter
    ]
    return [
        SectionPlan("recent_turns", "P1", recent),
        SectionPlan("starred", "P2", starred),
        SectionPlan("instructions", "P3", instructions),
        SectionPlan("memory", "P3", facts),
        SectionPlan("journal", "P4", journal),
    ]


async def recalled_plan(
    conn: asyncpg.Connection,
    request: ContextRequest,
    settings: ChatSettings,
    conversation: Conversation,
    plans: Sequence[SectionPlan],
    vector: list[float] | None,
) -> SectionPlan:
    """P5, once P1-P4 are known: what they hold is excluded."""
    loaded = {c.id for plan in plans for c in plan.candidates}
    loaded |= {e["turn_id"] for e in conversation.journal}
    if request.exclude_turn_id:
        loaded.add(request.exclude_turn_id)
    recalled = await recalled_candidates(
        conn,
        user_id=request.user_id,
        query=request.query,
        vector=vector,
        vector_weight=recall_vector_weight(settings),
        loaded=loaded,
        limit=settings.journal_recalled,
    )
    return SectionPlan("recalled", "P5", recalled)


def recall_vector_weight(settings: ChatSettings) -> float:
    """P5's vector vote: never with the hashed embedder, whose vectors only match words."""
    return settings.recall_vector_weight if model_settings().vector_weight > 0 else 0.0


def _is_citable_journal(candidate: Candidate) -> bool:
    return candidate.kind in JOURNAL_KINDS and bool(candidate.citation)


async def citable_lexemes(conn: asyncpg.Connection, plans: Sequence[SectionPlan]) -> Lexemes:
    """The lexemes of every citable journal candidate, by text (for `_confidence`)."""
    texts = [c.text for plan in plans for c in plan.candidates if _is_citable_journal(c)]
    return dict(zip(texts, await lexemes(conn, texts), strict=True))


async def conversation_side(
    pool: asyncpg.Pool,
    request: ContextRequest,
    settings: ChatSettings,
    vector: list[float] | None,
) -> tuple[Conversation, list[SectionPlan], Lexemes]:
    """P1-P5 with the lexemes of their citable journal items; the question is embedded here
    only when P5 runs, vectors vote and the file search did not need its vector."""
    async with pool.acquire() as conn:
        conversation = await read_conversation(conn, request, settings)
        plans = conversation_plans(conversation, request.query)
        if request.recent is not None:
            stored = [(t["user_message"], t["id"]) for t in conversation.recent]
            with_caller_messages(
                plans, request.recent, request.persona, settings.recent_turns, stored
            )
        if conversation.count <= settings.journal_recent:
            plans.append(SectionPlan("recalled", "P5"))
        else:
            if vector is None:
                weight = recall_vector_weight(settings)
                vector = await question_vector(request.user_id, request.query, weight)
            recalled = await recalled_plan(conn, request, settings, conversation, plans, vector)
            plans.append(recalled)
        # fetched while the files side searches; weighed once its term statistics are known
        return conversation, plans, await citable_lexemes(conn, plans)


async def build_context(
    pool: asyncpg.Pool, request: ContextRequest, settings: ChatSettings | None = None
) -> ContextBundle:
    """The ContextBundle for a question: sections by priority under settings.cap_tokens."""
    settings = settings or chat_settings()
    vector_weight = model_settings().vector_weight
    summary_path = is_summary_question(request.query)
    vector: list[float] | None = None
    if not summary_path:  # a summary question reads stored summaries, not ranked passages
        vector = await question_vector(request.user_id, request.query, vector_weight)
    # the conversation's queries (and P5's embedding) overlap the file search
    (conversation, plans, journal_lexemes), (attached, stats, found) = await asyncio.gather(
        conversation_side(pool, request, settings, vector),
        question_files(
            pool,
            request,
            summary_path=summary_path,
            vector=vector,
            vector_weight=vector_weight,
            passages=settings.file_passages,
        ),
    )
    plans.append(SectionPlan("files", "F", attachment_candidates(attached) + found.candidates))
    exclude = frozenset({request.exclude_turn_id} if request.exclude_turn_id else ())
    filled = fill(plans, settings.cap_tokens, exclude)
    confidence = _confidence(filled, stats, journal_lexemes)
    return ContextBundle(
        persona=request.persona,
        query=request.query,
        path=found.path,
        sections=filled.sections,
        references=filled.references,
        total_tokens=filled.total_tokens,
        cap_tokens=settings.cap_tokens,
        retrieval_confidence=round(confidence, 4),
        journal_entries=conversation.count,
    )


def _confidence(filled: Filled, stats: TermStats, journal_lexemes: Lexemes) -> float:
    """The best relevance among the loaded file passages and citable journal items; a summary
    asked for as it is (of the attached files, or of everything) is fully relevant, one of a
    topic's files as relevant as the topic's words found it."""
    best = 0.0
    for c in filled.loaded:
        if c.kind in ("file_summary", "section_summary"):
            best = max(best, 1.0 if c.score is None else c.score)
        elif c.kind == "chunk" and c.score is not None:
            best = max(best, c.score)
        elif _is_citable_journal(c):
            best = max(best, share_of_terms(journal_lexemes[c.text], stats))
    return min(best, 1.0)
