"""What you tell Artisan: a fact or an instruction, and for whom. The one rule.

- A **fact** says who the user is or what their company is or does: a name ("My name is Maya",
  "I'm Maya Chen", "Call me Maya"), a role ("I am the CEO of Brightloop"), the company's name,
  place, product, ways and problems ("our company is called Brightloop", "we are based in
  Lisbon", "our bottleneck is onboarding"). A fact is never an instruction; every advisor knows it.
- An **instruction** is a lasting request about how to answer ("I prefer short answers", "always
  answer in English", "never use sports analogies"). It is never a fact.
- A message holding both stores both: "I am Maya Chen, the CEO of Brightloop. I prefer short
  answers." is a name, a role and an instruction.
- An instruction is for **every advisor**, unless it names the advisor it speaks to ("Vlad,
  never use sports analogies", "you, Gunnar, should ...", "tell Ananya to ..."): then it is for
  that advisor only. "You" alone does not narrow it, nor does the conversation it is said in;
  "all of you" or "everyone" makes it every advisor's even when a name is there too.

The offline rules apply it (shared/providers/local/told.py reads a message into facts and an
instruction, for the turn cut, the memory facts and the acknowledgement alike); the remote
prompts (turn_cut_2a, memory_facts, chat_1a) state it, and code holds a model's scope to it
(`held_scope`). The memory panel words the scope as `audience` does.
"""

import re
from collections.abc import Sequence
from functools import lru_cache

from shared.domain import GLOBAL_SCOPE
from shared.personas import get_persona, load_personas

EVERY_ADVISOR = "every advisor"
GLOBAL_ADDRESS = re.compile(
    r"\b(?:all of you|every(?:one|body)|any of you|each of you|every one of you|you all|y'all"
    r"|all (?:the |my )?(?:personas|advisors|advisers|assistants|experts|bots|of them)"
    r"|every (?:persona|advisor|adviser)|whoever (?:answers|responds|replies))\b",
    re.IGNORECASE,
)
# a name followed by these is spoken about, not spoken to ("Vlad said ...", "Gunnar's plan")
_SPOKEN_ABOUT = (
    r"(?!['’]s\b|\s+(?:said|says|thinks|thought|told|tells|mentioned|suggested|wrote|asked"
    r"|recommended|is|was|has|had|does|did)\b)"
)


def known_personas() -> tuple[str, ...]:
    """Every persona's name: a file dropped into prompts/personas/ adds one."""
    return tuple(load_personas())


@lru_cache
def persona_alternation() -> str:
    """The personas' names as a regex alternation, longest first; one that never matches when
    there is no persona file."""
    names = sorted(known_personas(), key=len, reverse=True)
    return "|".join(re.escape(name) for name in names) or "(?!)"


@lru_cache
def _addressee() -> re.Pattern[str]:
    """A persona's name used as an addressee ("like Vlad", "than Gunnar" compare with one)."""
    return re.compile(
        rf"(?<!\blike )(?<!\bthan )(?<!\bfrom )(?<!\bwith )\b(?P<name>{persona_alternation()})\b"
        + _SPOKEN_ABOUT,
        re.IGNORECASE,
    )


@lru_cache
def _opening_vocative() -> re.Pattern[str]:
    return re.compile(
        rf"^\W*(?:hi|hey|hello|ok|okay|dear)?\W*(?P<name>{persona_alternation()})\b" + _SPOKEN_ABOUT
    )


def clear_caches() -> None:
    """Forget the personas' patterns (after the persona files changed, in tests)."""
    for cached in (persona_alternation, _addressee, _opening_vocative):
        cached.cache_clear()


def addressed_personas(text: str) -> list[str]:
    """Known persona names used as addressees, in order of first mention."""
    names = [match.group("name").lower() for match in _addressee().finditer(text)]
    return list(dict.fromkeys(names))


def opening_vocative(message: str) -> list[str]:
    """The persona a message greets at its start ("Hey Vlad! ..."), if any."""
    match = _opening_vocative().match(message.lower())
    return [match.group("name")] if match else []


def instruction_scope(message: str, directives: Sequence[str], persona: str) -> str:
    """'global', unless the directives (or the message's greeting) name the advisor they speak
    to: then that advisor; the one the message was sent to when it is among several named."""
    said = " ".join(directives) or message
    if GLOBAL_ADDRESS.search(said):
        return GLOBAL_SCOPE
    named = addressed_personas(said) or opening_vocative(message)
    if not named:
        return GLOBAL_SCOPE
    current = normalise_persona(persona)
    return current if current in named else named[0]


def held_scope(
    message: str, claimed: str | None, persona: str, directives: Sequence[str] = ()
) -> str:
    """A scope read by a model, held to the rule: an advisor only when the message names them
    (the model's choice among several named stands), else 'global'."""
    claimed_scope = normalise_scope(claimed, persona)
    named = addressed_personas(message) + opening_vocative(message)
    if claimed_scope in named and not GLOBAL_ADDRESS.search(" ".join(directives) or message):
        return str(claimed_scope)
    return instruction_scope(message, directives or (message,), persona)


def normalise_persona(persona: str) -> str:
    """Persona names are stored lower-case and trimmed ('Gunnar ' is 'gunnar')."""
    return persona.strip().lower()


def normalise_scope(scope: str | None, persona: str) -> str | None:
    """'global' or a persona's name, lower-case; None for anything else."""
    if scope is None:
        return None
    cleaned = scope.strip().lower()
    if cleaned == GLOBAL_SCOPE or GLOBAL_ADDRESS.fullmatch(cleaned) or cleaned in ("all", "any"):
        return GLOBAL_SCOPE
    if cleaned in known_personas() or (cleaned and cleaned == normalise_persona(persona)):
        return cleaned
    return None


def audience(scope: str) -> str:
    """Who keeps an instruction, as the acknowledgement and the memory panel word it: 'every
    advisor', or the one advisor's display name."""
    if scope == GLOBAL_SCOPE:
        return EVERY_ADVISOR
    persona = get_persona(scope)
    return persona.display_name if persona else scope
