"""Durable memory facts from a user's message by rules (seed 001): patterns with a confidence each,
kept only above 0.8; questions, hypotheticals, hedged claims and anything secret are not facts.
Names (of the user, of their company) come from identity.py; what is a fact and what an
instruction is shared/memory_rule.py's rule."""

import re
from collections.abc import Callable
from dataclasses import dataclass

from shared.domain import MemoryFact
from shared.providers.local.identity import Found, company_facts, person_facts
from shared.secrets import contains_secret, holds_marker
from shared.text.sentences import sentences

MIN_CONFIDENCE = 0.8
MAX_FACT_CHARS = 200
_QUESTION_START = re.compile(
    r"^(what|how|why|when|where|who|which|should|could|would|can|do|does|did|is|are|am|will|shall)\b",
    re.IGNORECASE,
)
_HYPOTHETICAL = re.compile(
    r"\b(if|suppose|supposing|imagine|hypothetically|pretend|what if|let's say|say that|assuming"
    r"|wish|one day|someday|might|may become)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(r"\b(maybe|perhaps|probably|i think|i guess|not sure|kind of|sort of)\b", re.I)
# passing states and one-off plans are not durable
_MOMENTARY = re.compile(
    r"\b(today|tonight|tomorrow|yesterday|this (?:morning|afternoon|week|month)|next week"
    r"|right now|at the moment|currently|later)\b",
    re.IGNORECASE,
)
_TRANSIENT = re.compile(r"^(bit|little|lot|few|moment|second|minute)\b", re.IGNORECASE)
_STABLE_VERB = re.compile(
    r"^(is|are|has|have|uses|use|sells|sell|builds|build|makes|make|serves|serve|runs|run"
    r"|always|usually|typically|never|relies|rely|struggles|struggle|focuses|focus|specialises"
    r"|specializes|specialise|specialize|works|work|ships|ship|prefers|prefer|values|value)\b",
    re.IGNORECASE,
)
_PRONOUNS = [
    (re.compile(r"\bmy\b", re.I), "their"),
    (re.compile(r"\bour\b", re.I), "their"),
    (re.compile(r"\bours\b", re.I), "theirs"),
    (re.compile(r"\bI\b"), "they"),
    (re.compile(r"\bme\b", re.I), "them"),
    (re.compile(r"\bwe\b", re.I), "they"),
    (re.compile(r"\bus\b", re.I), "them"),
]


@dataclass(frozen=True)
class Pattern:
    kind: str
    regex: re.Pattern[str]
    confidence: float
    render: Callable[[re.Match[str]], str]
    accept: Callable[[re.Match[str]], bool] = lambda _: True


def _p(expression: str) -> re.Pattern[str]:
    return re.compile(expression, re.IGNORECASE)


def _rest(match: re.Match[str]) -> str:
    return _third_person(match.group("rest"))


def _third_person(text: str) -> str:
    for pattern, replacement in _PRONOUNS:
        text = pattern.sub(replacement, text)
    return text.strip()


PATTERNS: tuple[Pattern, ...] = (
    Pattern(
        "user",
        _p(r"\bI(?: am|'m) (?P<art>a|an|the) (?P<rest>.+)"),
        0.9,
        lambda m: f"The user is {m.group('art').lower()} {_rest(m)}",
        lambda m: not _TRANSIENT.match(m.group("rest")),
    ),
    Pattern(
        "user",
        _p(r"\bmy (?:role|job|title|position) is (?P<rest>.+)"),
        0.93,
        lambda m: f"The user's role is {_rest(m)}",
    ),
    Pattern(
        "user",
        _p(r"\bI work (?P<how>as|at|for|in) (?P<rest>.+)"),
        0.88,
        lambda m: f"The user works {m.group('how').lower()} {_rest(m)}",
    ),
    Pattern(
        "user",
        _p(r"\bI (?P<verb>run|lead|manage|own|founded|co-founded) (?P<rest>.+)"),
        0.86,
        lambda m: f"The user {_verb_s(m.group('verb'))} {_rest(m)}",
    ),
    Pattern(
        "user",
        _p(r"\bI (?:always |generally |usually )?prefer (?P<rest>.+)"),
        0.86,
        lambda m: f"The user prefers {_rest(m)}",
    ),
    Pattern(
        "user",
        _p(r"\bI(?:'d| would) rather (?P<rest>.+)"),
        0.84,
        lambda m: f"The user would rather {_rest(m)}",
    ),
    Pattern(
        "company",
        _p(r"\bwe(?:'re|’re| are) (?P<how>based|headquartered|located) in (?P<rest>.+)"),
        0.9,
        lambda m: f"The user's company is {m.group('how').lower()} in {_rest(m)}",
    ),
    Pattern(
        "company",
        _p(
            r"\bour (?:biggest |main |recurring |key |real )?(?P<what>bottleneck|challenge"
            r"|problem|pain point|constraint) is (?P<rest>.+)"
        ),
        0.93,
        lambda m: f"The company's {m.group('what').lower()} is {_rest(m)}",
    ),
    Pattern(
        "company",
        _p(r"\bwe keep (?P<verb>running into|hitting|struggling with|having|losing) (?P<rest>.+)"),
        0.9,
        lambda m: f"The company keeps {m.group('verb').lower()} {_rest(m)}",
    ),
    Pattern(
        "company",
        _p(
            r"\bwe(?: have)? (?:learned|learnt|found out|realised|realized)"
            r" (?:that )?(?P<rest>.+)"
        ),
        0.88,
        lambda m: f"The company learned that {_rest(m)}",
    ),
    Pattern(
        "company",
        _p(r"\blessons? learned\s*[:\-]\s*(?P<rest>.+)"),
        0.9,
        lambda m: f"Lesson learned: {_rest(m)}",
    ),
    Pattern(
        "company",
        _p(r"\bwe (?P<how>always|usually|typically|generally|never|tend to) (?P<rest>.+)"),
        0.85,
        lambda m: f"At the company they {m.group('how').lower()} {_rest(m)}",
    ),
    Pattern(
        "company",
        _p(
            r"\bour (?P<who>team|company|startup|business|organi[sz]ation|org|product)"
            r"(?:'s)? (?P<rest>.+)"
        ),
        0.86,
        lambda m: f"The user's {m.group('who').lower()} {_rest(m)}",
        lambda m: bool(_STABLE_VERB.match(m.group("rest"))),
    ),
)


def _verb_s(verb: str) -> str:
    verb = verb.lower()
    return verb if verb.endswith("ed") else verb + "s"


def message_sentences(message: str) -> list[str]:
    """A chat message's sentences, each line and ';' clause apart: one fact or question each."""
    return sentences(message, semicolons=True, line_breaks=True)


def is_question(sentence: str) -> bool:
    return sentence.rstrip().endswith("?") or bool(_QUESTION_START.match(sentence))


def _is_statement(sentence: str) -> bool:
    """Questions and hypotheticals state nothing durable."""
    return not is_question(sentence) and not _HYPOTHETICAL.search(sentence)


def _tidy(fact: str) -> str:
    fact = fact.strip().rstrip(".!;,:").strip()
    return fact[:1].upper() + fact[1:] + "."


@dataclass(frozen=True)
class Stated:
    """A fact and the user's own words it was drawn from ("I am the head of finance at Acme")."""

    words: str
    fact: MemoryFact


def stated_facts(message: str) -> list[Stated]:
    """Every fact the patterns find in the message with its confidence, before the 0.8 bar."""
    found: list[Stated] = []
    for sentence in message_sentences(message):
        if not _is_statement(sentence) or contains_secret(sentence):
            continue
        found += [_identity(named, sentence) for named in person_facts(sentence)]
        for pattern in PATTERNS:
            match = pattern.regex.search(sentence)
            if match is None or not pattern.accept(match):
                continue
            fact = _tidy(pattern.render(match))
            confidence = _confidence(pattern.confidence, sentence, fact)
            said = sentence[match.start() :].strip().rstrip(".!;,:").strip()
            found.append(
                Stated(said, MemoryFact(kind=pattern.kind, fact=fact, confidence=confidence))
            )
            break  # one pattern per sentence: the most specific pattern comes first
        found += [_identity(named, sentence) for named in company_facts(sentence)]
    return found


def _identity(named: Found, sentence: str) -> Stated:
    """A name, a role beside it or the company's name (identity.py), as a stated fact."""
    fact = _tidy(_third_person(named.fact))
    confidence = _confidence(named.confidence, sentence, fact)
    return Stated(named.words, MemoryFact(kind=named.kind, fact=fact, confidence=confidence))


def _confidence(confidence: float, sentence: str, fact: str) -> float:
    """A pattern's confidence, lowered for hedged or passing statements and very long facts."""
    if _HEDGE.search(sentence):
        confidence -= 0.15
    if _MOMENTARY.search(sentence):
        confidence -= 0.2
    if len(fact) > MAX_FACT_CHARS:
        confidence -= 0.15
    return round(confidence, 2)


def facts_in(message: str) -> list[MemoryFact]:
    """Every fact the patterns find in the message with its confidence, before the 0.8 bar."""
    return [stated.fact for stated in stated_facts(message)]


def remembered(message: str) -> list[Stated]:
    """The facts kept: above the bar, holding no secret nor a redaction marker, each once."""
    kept: dict[str, Stated] = {}
    for stated in stated_facts(message):
        fact = stated.fact.fact
        if stated.fact.confidence > MIN_CONFIDENCE and not (
            contains_secret(fact) or holds_marker(fact)
        ):
            kept.setdefault(fact.lower(), stated)
    return list(kept.values())
