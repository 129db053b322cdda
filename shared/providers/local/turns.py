"""Extractive Artisan Cut of a conversation turn (seed 002): essences, arc, salience, flags."""

from dataclasses import replace

from shared.domain import GLOBAL_SCOPE, TurnCut
from shared.memory_rule import normalise_persona
from shared.providers.local.arcs import fit_arc
from shared.providers.local.artisan_cut import (
    DECISION_WORDS,
    GREETING,
    NUMBER,
    pointer_clause,
    salience,
)
from shared.providers.local.instructions import Instruction, is_directive, without_address
from shared.providers.local.summary import fit_sentences, ranked_sentences
from shared.providers.local.titles import key_phrase
from shared.providers.local.told import told
from shared.text.words import shorten, words

BOSS_ESSENCE_CHARS = 240
PERSONA_ESSENCE_CHARS = 400
_VERBATIM_MESSAGE_CHARS = 160  # a message this short is its own essence
_ARC_CLAUSE_CHARS = 70  # each side of "question → answer" gets about half the arc
_INSTRUCTION_SALIENCE = 7  # instructions persist: never let them rank as trivia
_DECISION_SALIENCE = 6  # the user stating a decision or commitment
_QUESTION_AS_TITLE_CHARS = 300
_DIRECTIVE_BONUS = 100.0


def turn_cut(user_message: str, ai_response: str, persona: str) -> TurnCut:
    """Boss and persona essences, a 50-150 character arc, salience and the instruction flags."""
    persona_name = normalise_persona(persona)
    reading = told(user_message, persona_name)
    instruction = reading.instruction
    return TurnCut(
        boss_essence=boss_essence(user_message),
        persona_name=persona_name,
        persona_essence=persona_essence(ai_response, user_message),
        decision_arc_summary=turn_arc(user_message, ai_response, persona_name, instruction),
        salience_score=turn_salience(user_message, ai_response, instruction),
        is_instruction=instruction.is_instruction,
        instruction_scope=instruction.scope,
        instruction=reading.instruction_words,
    )


def boss_essence(user_message: str) -> str:
    """The message itself when short; else its key sentences, directives always first."""
    flat = " ".join(user_message.split())
    if len(flat) <= _VERBATIM_MESSAGE_CHARS:
        return flat
    ranked = ranked_sentences(user_message, "")
    if not ranked:
        return shorten(flat, BOSS_ESSENCE_CHARS, "…")
    # directives outrank everything else the user said: the journal must not lose them
    ranked = [
        replace(item, score=item.score + _DIRECTIVE_BONUS) if is_directive(item.text) else item
        for item in ranked
    ]
    ranked.sort(key=lambda item: (-item.score, item.index))
    return fit_sentences(ranked, limit=BOSS_ESSENCE_CHARS, max_sentences=2)


def persona_essence(ai_response: str, user_message: str) -> str:
    """The answer's key sentences, those that take up the user's words ranked higher."""
    # the question serves as the answer's title: its words mark the sentences that answer it
    question = user_message[:_QUESTION_AS_TITLE_CHARS]
    ranked = ranked_sentences(ai_response, question)
    if not ranked:
        return shorten(ai_response, PERSONA_ESSENCE_CHARS, "…")
    return fit_sentences(ranked, limit=PERSONA_ESSENCE_CHARS, max_sentences=3)


def turn_arc(user_message: str, ai_response: str, persona: str, instruction: Instruction) -> str:
    """'Topic: what was asked → what was answered', or 'Instruction for X: directive'."""
    if instruction.is_instruction:
        head = _instruction_head(instruction.scope)
        clauses = [pointer_clause(without_address(line)) for line in instruction.sentences[:2]]
        body = "; ".join(clause for clause in clauses if clause)
    else:
        head = _topic(f"{user_message}\n{ai_response}")
        asked = _best_clause(user_message, "")
        answered = _best_clause(ai_response, user_message[:_QUESTION_AS_TITLE_CHARS])
        body = " → ".join(clause for clause in (asked, answered) if clause)
    arc = f"{head}: {body}" if head and body else head or body
    return fit_arc(arc, pads=[f"exchange with {persona or 'the persona'}"])


def _instruction_head(scope: str | None) -> str:
    return "Instruction for all personas" if scope == GLOBAL_SCOPE else f"Instruction for {scope}"


def _topic(text: str) -> str:
    """The exchange's most repeated topic phrase, capitalised; '' when nothing repeats."""
    phrase = key_phrase(text)
    return phrase[:1].upper() + phrase[1:]


def _best_clause(text: str, title: str) -> str:
    """The best sentence pressed into a clause; a bare 'Hi' (no sentence to rank) as it is."""
    ranked = ranked_sentences(text, title)
    best = ranked[0].text if ranked else " ".join(text.split())
    return shorten(pointer_clause(best), _ARC_CLAUSE_CHARS) if best else ""


def turn_salience(user_message: str, ai_response: str, instruction: Instruction) -> int:
    """1-10: decisions, commitments, figures and instructions up; greetings and small talk down."""
    score = max(salience(user_message), salience(f"{user_message}\n{ai_response}"))
    if instruction.is_instruction:
        score = max(score, _INSTRUCTION_SALIENCE)
    elif DECISION_WORDS.intersection(words(user_message)):
        # a decision the user states is the heart of the journal, however long the answer runs
        score = max(score, _DECISION_SALIENCE + (1 if NUMBER.search(user_message) else 0))
    elif _is_small_talk(user_message, ai_response):
        score = min(score, 2)
    return max(1, min(10, score))


def _is_small_talk(user_message: str, ai_response: str) -> bool:
    """Greetings and thanks with no figure and nothing decided on either side."""
    both = f"{user_message}\n{ai_response}"
    short = len(words(user_message)) <= 12
    signal = NUMBER.search(both) or DECISION_WORDS.intersection(words(both))
    return short and bool(GREETING.search(user_message)) and not signal
