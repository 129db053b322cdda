"""Who the user is and what their company is called, by rules: names survive into facts.

"My name is Maya", "I'm Maya Chen", "Call me Maya" → "The user's name is Maya Chen."; an
appositive role ("I am Maya Chen, the CEO of Brightloop") → "The user is the CEO of
Brightloop."; a company named as the user's ("our company is called Brightloop", "I run
Brightloop", "the CEO of Brightloop", "I work at Acme") → "The user's company is called
Brightloop.". Names are capitalised words, read case-sensitively; the words around them are not.
"""

import re
from dataclasses import dataclass

from shared.text.words import word_set

# a capitalised word of a person's name: Maya, O'Neil, McKay, Jean-Luc (never "Gunnar's")
_NAME_WORD = r"(?:[A-Z]['’])?(?:[A-Z][a-z]+)+(?:-(?:[A-Z][a-z]+)+)*"
_NAME = rf"(?P<name>{_NAME_WORD}(?: (?:{_NAME_WORD}|[A-Z]\.)){{0,3}})"
_NAME_END = r"(?=\s*(?:$|[,.;:!?()—–]|\s-\s|\s(?:and|from|of|at|here|by the way)\b))"
_COMPANY = r"(?P<company>[A-Z][\w&’'.-]*(?: [A-Z0-9][\w&’'.-]*){0,3})"
# capitalised words after "I am" that are not names: states, nationalities, languages
_NOT_NAMES = word_set(
    "Sorry Fine Good Great Happy Glad Back Done Ready Here Sure Not Also Just Really So Very "
    "Still Now Afraid Tired Busy Excited Worried Thinking Looking Working Going Trying Okay Ok "
    "In On At Home Away Out Off New Single Married English German French Spanish Italian Dutch "
    "Swedish Danish Norwegian Finnish Polish Portuguese Brazilian Indian Chinese Japanese "
    "Korean American Canadian British Irish Scottish Australian Mexican Russian Ukrainian "
    "Turkish Greek Swiss Austrian Belgian Israeli Nigerian Kenyan Vegan Vegetarian Christian "
    "Muslim Jewish Catholic Pro Senior Junior"
)
# capitalised words after "head of" that name a department, not a company
_DEPARTMENTS = word_set(
    "Sales Marketing Product Engineering Finance Operations People HR Design Growth Research "
    "Legal Support Customer Success Data IT Technology Strategy Partnerships Business Development "
    "Revenue Communications Talent Recruiting Security Platform Infrastructure Analytics Ops"
)
_ROLE = (
    r"CEO|CTO|COO|CFO|CMO|CPO|CRO|VP|founder|co-?founder|owner|head|director|manager|lead"
    r"|president|partner|chief|engineer|designer|employee|member|chair|chairman|chairwoman"
)


@dataclass(frozen=True)
class Found:
    kind: str  # "user" | "company"
    fact: str
    confidence: float
    words: str  # the user's own words it was drawn from


_USER_NAME = (
    (re.compile(rf"(?i:\bmy (?:full |first |real )?name(?: is|'s|’s))\s+{_NAME}{_NAME_END}"), 0.95),
    (
        re.compile(
            rf"(?i:\b(?:call me|address me as|refer to me as|i go by"
            rf"|(?:people|everyone|everybody|friends) call me))\s+{_NAME}{_NAME_END}"
        ),
        0.92,
    ),
    (re.compile(rf"\bI(?i: am|'m|’m)\s+{_NAME}{_NAME_END}"), 0.9),
)
_APPOSITIVE_ROLE = re.compile(
    rf",\s+(?P<role>(?i:(?:the|a|an)\s+[^.;!?,]+|(?:{_ROLE})\b[^.;!?,]*))", re.IGNORECASE
)
_COMPANY_NAMED = (
    re.compile(
        r"(?i:\b(?:my|our|the) (?:company|startup|business|firm|organi[sz]ation)"
        r"(?:['’]s name is| is (?:called|named)| goes by))\s+" + _COMPANY
    ),
    re.compile(r"(?i:\bwe(?:['’]re| are) (?:called|named))\s+" + _COMPANY),
    re.compile(
        r"\bI (?i:work (?:at|for)|run|founded|co-founded|cofounded|own|started|built)\s+" + _COMPANY
    ),
)
# a role the user says they hold ("I am the head of Sales at Acme", "I'm Maya, CEO of X"): read
# step by step, each a single scan, so that a long sentence costs linear time
_I_AM = re.compile(r"\bI(?i: am|'m|’m)\b")
_ROLE_WORD = re.compile(rf"\b(?i:{_ROLE})\b")
_ROLE_AT = re.compile(rf"\b(?:at|for)\s+{_COMPANY}")  # where the role is ...
_ROLE_OF = re.compile(rf"\bof\s+{_COMPANY}")  # ... or, with neither, what it is of
_CLAUSE_END = re.compile(r"[.;!?]")
MAX_SENTENCE_CHARS = 600  # a statement about who one is is short; the rest is not read


def person_facts(sentence: str) -> list[Found]:
    """The user's name and a role said beside it, as one sentence gives them (once each)."""
    sentence = sentence[:MAX_SENTENCE_CHARS]
    found: list[Found] = []
    for pattern, confidence in _USER_NAME:
        match = pattern.search(sentence)
        if match and not _NOT_NAMES.intersection(match.group("name").split()):
            name = match.group("name")
            found.append(Found("user", f"The user's name is {name}.", confidence, match.group(0)))
            if role := _APPOSITIVE_ROLE.match(sentence, match.end("name")):
                words = role.group("role").strip()
                article = "" if re.match(r"(?i:the|a|an)\b", words) else "the "
                fact = f"The user is {article}{words}."
                found.append(Found("user", fact, confidence, f"{match.group(0)}, {words}"))
            break
    return found


def company_facts(sentence: str) -> list[Found]:
    """The name of the user's company, as the sentence gives it (once)."""
    sentence = sentence[:MAX_SENTENCE_CHARS]
    named = [(m, m.start()) for m in (p.search(sentence) for p in _COMPANY_NAMED) if m]
    for match, start in [*named, *_role_company(sentence)]:
        company = match.group("company").rstrip(".’'")
        if company.split()[0] not in _DEPARTMENTS:
            fact = f"The user's company is called {company}."
            return [Found("company", fact, 0.9, sentence[start : match.end()].rstrip(".’'"))]
    return []


def _role_company(sentence: str) -> list[tuple[re.Match[str], int]]:
    """The company after a role the user holds ("I am the head of Sales at Acme" → Acme), and
    where the user's words about it start."""
    said = _I_AM.search(sentence)
    if said is None:
        return []
    end = _CLAUSE_END.search(sentence, said.end())
    stop = end.start() if end else len(sentence)
    role = _ROLE_WORD.search(sentence, said.end(), stop)
    if role is None:
        return []
    found = _ROLE_AT.search(sentence, role.end(), stop) or _ROLE_OF.search(
        sentence, role.end(), stop
    )
    return [(found, said.start())] if found else []
