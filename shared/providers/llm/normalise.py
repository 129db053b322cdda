"""Model answers made fit for storage: clamped salience, arcs of 50-150 characters, clean scopes.

A model's valid JSON can still miss the contract (salience 0, a 300-character arc, scope
"Gunnar"); fixing that in code is cheaper and more predictable than another model call. Only an
answer with nothing usable in it is refused, with ModelOutputError.
"""

from shared.domain import GLOBAL_SCOPE, ArtisanCut, TurnCut
from shared.errors import ModelOutputError
from shared.memory_rule import held_scope
from shared.providers.llm.schemas import CutAnswer, TurnCutAnswer

ARC_MIN_CHARS = 50
ARC_MAX_CHARS = 150
ESSENCE_MAX_CHARS = 1_200  # twice what the prompts ask for: only a runaway answer is cut
_ARC_FILLER = "short note: no decision, risk, commitment or figure is stated in it"
_GLOBAL_SCOPES = frozenset(
    {"global", "all", "everyone", "everybody", "all personas", "every persona", "all of you", "*"}
)
_NO_SCOPE = frozenset({"", "null", "none", "n/a"})


def clamp_salience(score: int) -> int:
    return min(max(int(score), 1), 10)


def shorten(text: str, limit: int) -> str:
    """Whitespace collapsed and cut at the last word boundary that fits in `limit`."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    space = text.rfind(" ", 0, limit + 1)
    cut = text[:space] if space > limit // 2 else text[:limit]  # one huge word: cut inside it
    return cut.rstrip(" ,;:-–—")


def fit_arc(arc: str, *fillers: str) -> str:
    """An arc of 50-150 characters: a long one cut at a word boundary, a short one padded with
    the words of the fillers (title, essence, source) in order."""
    arc = shorten(arc, ARC_MAX_CHARS)
    for filler in (*fillers, _ARC_FILLER):
        if len(arc) >= ARC_MIN_CHARS:
            break
        arc = _padded(arc, filler)
    return arc


def _padded(arc: str, filler: str) -> str:
    words = filler.split()
    if not words:
        return arc
    arc = f"{arc} — " if arc else ""
    for word in words:
        if len(arc) + len(word) > ARC_MAX_CHARS:
            break
        arc += word + " "
        if len(arc.rstrip()) >= ARC_MIN_CHARS:
            break
    return arc.rstrip(" —")


def to_artisan_cut(answer: CutAnswer, *, title: str, text: str) -> ArtisanCut:
    """The stored cut of a chunk; refused only when the model said nothing at all."""
    essence = shorten(answer.chunk_essence, ESSENCE_MAX_CHARS)
    arc = " ".join(answer.decision_arc_summary.split())
    if not essence and not arc:
        raise ModelOutputError(f"the model's Artisan Cut of {title!r} has no essence and no arc")
    return ArtisanCut(
        chunk_essence=essence or arc,
        decision_arc_summary=fit_arc(arc, title, essence, text),
        salience_score=clamp_salience(answer.salience_score),
    )


def to_turn_cut(
    answer: TurnCutAnswer, *, persona: str, user_message: str, ai_response: str
) -> TurnCut:
    """The journal's cut of a turn: the persona known to the caller, a scope only on an
    instruction, lower-case persona names so scopes compare equal to them."""
    boss = shorten(answer.boss_essence, ESSENCE_MAX_CHARS) or shorten(user_message, 300)
    reply = shorten(answer.persona_essence, ESSENCE_MAX_CHARS) or shorten(ai_response, 300)
    if not boss and not reply:
        raise ModelOutputError("the model's Artisan Cut of the turn has no content")
    persona_name = persona.strip().lower() or answer.persona_name.strip().lower()
    return TurnCut(
        boss_essence=boss,
        persona_name=persona_name,
        persona_essence=reply,
        decision_arc_summary=fit_arc(answer.decision_arc_summary, boss, reply),
        salience_score=clamp_salience(answer.salience_score),
        is_instruction=answer.is_instruction,
        instruction_scope=instruction_scope(
            answer.is_instruction, answer.instruction_scope, persona_name, user_message
        ),
        instruction=_instruction_words(answer, boss) if answer.is_instruction else None,
    )


def _instruction_words(answer: TurnCutAnswer, boss_essence: str) -> str:
    """The directive alone as the model gave it; the boss essence when it gave none."""
    return shorten(answer.instruction or "", ESSENCE_MAX_CHARS) or boss_essence


def instruction_scope(
    is_instruction: bool, scope: str | None, persona: str, user_message: str
) -> str | None:
    """None when the turn holds no instruction; else the scope held to the one rule
    (shared/memory_rule.py): a persona only when the message names it, else 'global'."""
    if not is_instruction:
        return None
    cleaned = " ".join((scope or "").strip().strip("'\"").lower().split())
    claimed = GLOBAL_SCOPE if cleaned in _GLOBAL_SCOPES else cleaned
    return held_scope(user_message, None if cleaned in _NO_SCOPE else claimed, persona)
