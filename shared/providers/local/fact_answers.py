"""Questions about the user or their company, answered offline from the memory facts (P3).

A question in the first person ("my", "our", "I", "we") about a topic a fact can hold — the
user's name ("What is my name?", "Who am I?"), the company's name ("What is my company
called?"), the user's role ("What's my role?"), where the company is ("Where is our company
based?") — is answered by the newest fact on that topic, before any file passage. Any other
first-person question that nothing else answers may still be answered by the facts that hold
its words ("What is our biggest bottleneck?"). The fact is said back in the second person
("Your name is Maya Chen.") and cited as its memory source.
"""

import re
from dataclasses import dataclass

from shared.providers.base import AnswerInput
from shared.providers.local.memory import is_question
from shared.providers.local.persons import second_person
from shared.providers.local.quotes import Candidate, best_sentences

FACT_KIND = "memory_fact"
MAX_QUESTION_CHARS = 300  # a direct question about the user is short; a longer one goes to files
_FIRST_PERSON = re.compile(r"\b(?:my|our|i|we|me|us|mine|ours)\b", re.IGNORECASE)
_HEADING = re.compile(r"^About the (?:user|company): ")


@dataclass(frozen=True)
class Topic:
    asks: re.Pattern[str]  # a question about it
    states: re.Pattern[str]  # a fact that answers it


def _topic(asks: str, states: str) -> Topic:
    return Topic(re.compile(asks, re.IGNORECASE), re.compile(states, re.IGNORECASE))


_COMPANY = r"(?:company|startup|business|firm|organi[sz]ation)"
TOPICS = (
    _topic(  # the user's name
        r"\b(?:what(?:'s| is) my (?:full |first |real )?name|who am i|what am i called"
        r"|do you (?:know|remember) (?:my name|who i am)|what (?:should|do) you call me)\b",
        r"^The user's name is\b",
    ),
    _topic(  # the company's name
        rf"\b(?:what(?:'s| is) (?:my|our) {_COMPANY}(?:'s name| called| named|\s*\?)"
        rf"|(?:the )?name of (?:my|our) {_COMPANY}|what (?:do|did) (?:i|we) call (?:my|our) "
        rf"{_COMPANY}|what {_COMPANY} (?:do|did) (?:i|we) (?:run|own|lead|found|start|work)"
        rf"|who do i work for|where do i work)\b",
        rf"\b{_COMPANY}(?:'s name)? is (?:called|named)\b",
    ),
    _topic(  # the user's role
        r"\b(?:what(?:'s| is) my (?:role|job|title|position|job title)|what do i do"
        r"|what am i(?! called)|what is my job)\b",
        r"^The user(?:'s (?:role|job|title|position) is| is (?:a|an|the)\b| works as\b)",
    ),
    _topic(  # where the company is
        r"\bwhere (?:is|are) (?:my |our |we |the )?(?:company|startup|business|team|office"
        r"|headquarters|hq|we)?\b.*\b(?:based|located|headquartered)\b"
        r"|\bwhere (?:are we|is our \w+) (?:based|located)\b",
        r"\b(?:based|located|headquartered) in\b",
    ),
)


def memory_answer(request: AnswerInput, *, any_topic: bool = False) -> str | None:
    """The answer from memory facts to a question about the user or their company, or None.
    By default only a question on one of TOPICS; `any_topic` also takes the facts that hold
    the question's words (for a question nothing else answered)."""
    question = request.question.replace("’", "'")
    if len(question) > MAX_QUESTION_CHARS or not _FIRST_PERSON.search(question):
        return None
    if not is_question(question.strip()):
        return None
    facts = fact_candidates(request)
    if not facts:
        return None
    chosen = _on_topic(question, facts)
    if not chosen and any_topic:
        chosen = best_sentences(question, facts)[:1]
    if not chosen:
        return None
    return " ".join(f"{second_person(c.text)} [Ref: {c.ref}]" for c in chosen)


def fact_candidates(request: AnswerInput) -> list[Candidate]:
    """The memory facts in the context, oldest first, each as its own words."""
    found = []
    for section in request.bundle.sections:
        for item in section.items:
            if item.kind == FACT_KIND and item.ref is not None:
                text = request.passages.get(item.ref) or _HEADING.sub("", item.text)
                found.append(Candidate(item.ref, len(found), 0, text.strip()))
    return found


def _on_topic(question: str, facts: list[Candidate]) -> list[Candidate]:
    """The newest fact on the topic the question asks about, if it asks about one."""
    for topic in TOPICS:
        if topic.asks.search(question):
            stating = [fact for fact in facts if topic.states.search(fact.text)]
            return stating[-1:]
    return []
