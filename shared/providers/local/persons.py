"""Whose words: the user's words as a persona says them back, and a stored fact as said to the
user ("The user runs their sales team." → "You run your sales team.")."""

import re

# the user's words as a persona repeats them: first and second person swapped ("my" → "your")
_SWAPS = {
    "i am": "you are",
    "i was": "you were",
    "i'm": "you're",
    "i've": "you've",
    "i'd": "you'd",
    "i'll": "you'll",
    "we're": "you're",
    "we've": "you've",
    "you are": "I am",
    "you were": "I was",
    "you're": "I'm",
    "you've": "I've",
    "you'd": "I'd",
    "you'll": "I'll",
    "i": "you",
    "me": "you",
    "my": "your",
    "mine": "yours",
    "myself": "yourself",
    "we": "you",
    "us": "you",
    "our": "your",
    "ours": "yours",
    "ourselves": "yourselves",
    "your": "my",
    "yours": "mine",
    "yourself": "myself",
}
_SWAP = re.compile(
    r"\b(?:" + "|".join(sorted(_SWAPS, key=len, reverse=True)) + r"|you)\b", re.IGNORECASE
)
# "you" after these is an object ("tell you", "for you"): "me"; elsewhere a subject: "I"
_OBJECT_BEFORE = re.compile(
    r"\b(?:to|for|with|at|about|from|of|ask|tell|give|show|let|help|call|like|than|thank"
    r"|want|need|expect|would like|'d like)\s+$",
    re.IGNORECASE,
)


def swap_persons(text: str) -> str:
    """The user's words as the persona says them back: "I run our sales team" → "you run your
    sales team", "I want you to ask me" → "you want me to ask you"."""
    text = text.replace("’", "'")

    def swapped(match: re.Match[str]) -> str:
        word = match.group(0).lower()
        if word == "you":
            return "me" if _OBJECT_BEFORE.search(text[: match.start()]) else "I"
        return _SWAPS[word]

    return _SWAP.sub(swapped, text)


_USER_VERB = re.compile(r"^The user (?P<verb>[a-z]+)\b")
_SECOND_PERSON = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"^The user's\b", "Your"),
        (r"^The user is\b", "You are"),
        (r"^The user was\b", "You were"),
        (r"^The user has\b", "You have"),
        (r"^The company's\b", "Your company's"),
        (r"^The company\b", "Your company"),
        (r"^At the company\b", "At your company"),
        (r"\btheir\b", "your"),
        (r"\btheirs\b", "yours"),
        (r"\bthemselves\b", "yourself"),
    )
)


def second_person(fact: str) -> str:
    """A stored fact as said to the user: "The user's name is Maya Chen." → "Your name is Maya
    Chen."; "The user runs their sales team." → "You run your sales team."."""
    if verb := _USER_VERB.match(fact):
        fact = f"You {_plain(verb.group('verb'))}{fact[verb.end() :]}"
    for pattern, replacement in _SECOND_PERSON:
        fact = pattern.sub(replacement, fact)
    return fact


def _plain(verb: str) -> str:
    """'runs' → 'run', 'prefers' → 'prefer', 'pushes' → 'push', 'carries' → 'carry'."""
    if verb in ("is", "was", "has", "does", "would", "will", "can", "should"):
        return {"is": "are", "was": "were", "has": "have", "does": "do"}.get(verb, verb)
    if verb.endswith("ies"):
        return verb[:-3] + "y"
    if verb.endswith(("sses", "shes", "ches", "xes", "zes")):
        return verb[:-2]
    if verb.endswith("s") and not verb.endswith("ss"):
        return verb[:-1]
    return verb
