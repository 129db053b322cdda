"""Offline Artisan Cut call 2B: check a cut against its source and correct what does not hold."""

from collections.abc import Callable

from shared.domain import ArtisanCut, TurnCut
from shared.memory_rule import held_scope, normalise_persona
from shared.providers.cpu import run_sized
from shared.providers.local.arcs import fit_arc
from shared.providers.local.artisan_cut import artisan_cut, pointer_clause
from shared.providers.local.instructions import detect_instruction, directive_sentences
from shared.providers.local.told import told
from shared.providers.local.tracing import (
    Source,
    is_traceable,
    traced_sentences,
    without_invented_clauses,
)
from shared.providers.local.turns import boss_essence, persona_essence, turn_arc
from shared.text.sentences import sentence_spans
from shared.text.words import shorten

SALIENCE_MIN = 1
SALIENCE_MAX = 10
_PAD_CLAUSE_CHARS = 70


class LocalVerifier:
    """Offline verifier: drops what cannot be traced to the source, enforces the bounds."""

    async def verify(self, text: str, title: str, cut: ArtisanCut) -> ArtisanCut:
        return await run_sized(len(text), verify_cut, text, title, cut)

    async def verify_turn(
        self, user_message: str, ai_response: str, persona: str, cut: TurnCut
    ) -> TurnCut:
        return await run_sized(
            len(user_message) + len(ai_response),
            verify_turn_cut,
            user_message,
            ai_response,
            persona,
            cut,
        )


def verify_cut(text: str, title: str, cut: ArtisanCut) -> ArtisanCut:
    """The cut with untraceable sentences and invented figures removed, arc and salience bounded."""
    source = Source.of(text, title)
    essence = traced_essence(
        cut.chunk_essence, source, lambda: artisan_cut(text, title).chunk_essence
    )
    arc = verified_arc(
        cut.decision_arc_summary,
        source,
        rebuild=lambda: artisan_cut(text, title).decision_arc_summary,
        pads=[title, *_pad_clauses(essence)],
    )
    return ArtisanCut(
        chunk_essence=essence,
        decision_arc_summary=arc,
        salience_score=clamp_salience(cut.salience_score),
    )


def verify_turn_cut(user_message: str, ai_response: str, persona: str, cut: TurnCut) -> TurnCut:
    """The turn cut traced to the message and the answer; bounds and instruction scope enforced."""
    persona_name = normalise_persona(persona)
    boss = traced_essence(
        cut.boss_essence, Source.of(user_message), lambda: boss_essence(user_message)
    )
    answer = traced_essence(
        cut.persona_essence,
        Source.of(ai_response),
        lambda: persona_essence(ai_response, user_message),
    )
    is_instruction = bool(cut.is_instruction)
    arc = verified_arc(
        cut.decision_arc_summary,
        Source.of(user_message, ai_response),
        rebuild=lambda: turn_arc(
            user_message,
            ai_response,
            persona_name,
            detect_instruction(user_message, persona_name),
        ),
        pads=[*_pad_clauses(boss), *_pad_clauses(answer), f"exchange with {persona_name}"],
    )
    return TurnCut(
        boss_essence=boss,
        persona_name=persona_name,
        persona_essence=answer,
        decision_arc_summary=arc,
        salience_score=clamp_salience(cut.salience_score),
        is_instruction=is_instruction,
        instruction_scope=verified_scope(cut, user_message, persona_name),
        instruction=(told(user_message, persona_name).instruction_words or cut.instruction)
        if is_instruction
        else None,
    )


def traced_essence(essence: str, source: Source, recompute: Callable[[], str]) -> str:
    """The essence's traceable sentences; recomputed from the source when none is left."""
    kept = traced_sentences(essence, source)
    return " ".join(kept) if kept else recompute()


def verified_arc(arc: str, source: Source, *, rebuild: Callable[[], str], pads: list[str]) -> str:
    """The arc without clauses stating invented figures, fitted to 50-150 characters.

    An arc whose words mostly do not occur in the source points nowhere: it is rebuilt.
    """
    checked = without_invented_clauses(arc, source)
    if not is_traceable(checked, source):
        return rebuild()
    return fit_arc(checked, pads)


def verified_scope(cut: TurnCut, user_message: str, persona: str) -> str | None:
    """None unless an instruction; else the scope the rule gives (shared/memory_rule.py): a
    persona only when the message names it, whatever the draft said."""
    if not cut.is_instruction:
        return None
    directives = directive_sentences(user_message)
    return held_scope(user_message, cut.instruction_scope, persona, directives)


def clamp_salience(score: int | float) -> int:
    """A salience score forced into 1-10 (a model may say 0, 14 or 7.5)."""
    return max(SALIENCE_MIN, min(SALIENCE_MAX, round(score)))


def _pad_clauses(essence: str) -> list[str]:
    """Essence sentences pressed into arc clauses, to lengthen an arc that is too short."""
    return [
        shorten(pointer_clause(" ".join(essence[start:end].split())), _PAD_CLAUSE_CHARS)
        for start, end in sentence_spans(essence)
    ]
