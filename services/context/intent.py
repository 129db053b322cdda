"""Which path a question takes to the user's files (seed 003): stored summaries or search, and
what a summary question is about besides asking for a summary."""

import re

_SUMMARY = re.compile(
    r"\b(summari[sz]e[sd]?|summari[sz]ing|summary|summaries|overview|tl;?dr)\b"
    r"|\bwhat(?:'s| is| are)\s+(?:this|that|these|the|my)\s+(?:files?|documents?|docs?)\s+about\b"
    r"|\bwhat(?:'s| is)\s+(?:this|it)\s+about\b",
    re.IGNORECASE,
)


def is_summary_question(question: str) -> bool:
    """Summary questions ("summarise", "overview", "what is this document about", "tl;dr")."""
    return bool(_SUMMARY.search(question))


# words that only ask for a summary or point at the files (stop words go in search anyway)
_ASKING = re.compile(
    r"\b(?:give|tell|show|please|pls|quick|short|brief|high[- ]level|everything|all|files?"
    r"|documents?|docs?|uploads?|uploaded|stuff|things?|contents?|want|need|like|get|provide"
    r"|write|make|can|could|would|you|me|my|our|this|these|those|that|it|the|an?|of|for|on|about)\b",
    re.IGNORECASE,
)


def summary_topic(question: str) -> str:
    """What a summary question is about ("an overview of our Mars budget" → "Mars budget");
    empty when it only asks for a summary ("Summarise my files", "what is this about")."""
    rest = _ASKING.sub(" ", _SUMMARY.sub(" ", question))
    return " ".join(re.sub(r"[^\w'-]+", " ", rest).split())
