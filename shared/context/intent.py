"""Which path a question takes to the user's files (seed 003): stored summaries or search."""

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
