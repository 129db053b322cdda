"""Whether a question asks for advice or an opinion ("what should we do about…", "do you think…").

Offline, no model can weigh options, so such a question is answered with the decisions and facts
on record and a line that says so; with a model it is an ordinary question. By form, linear time.
"""

import re

from shared.text.words import word_set

# the words that ask for a view rather than name its topic
OPINION_WORDS = word_set(
    """
    think thinks believe feel recommend recommendation recommendations suggest suggestion
    suggestions advise advice opinion opinions view take idea ideas wise smart worth best better
    approach option options should would could do go
    """
)
_ADVICE = re.compile(
    r"\bshould\s+(?:we|i|our|my|they|the\s+(?:company|team|board))\b"
    r"|\bwhat\s+(?:would|should|do)\s+you\s+(?:do|recommend|suggest|advise|propose|think)\b"
    r"|\b(?:do|would)\s+you\s+(?:think|believe|recommend|suggest|advise|feel)\b"
    r"|\bwhat(?:'s|’s|\s+is|\s+are)\s+your\s+(?:take|view|views|opinion|advice|thoughts"
    r"|recommendations?|suggestions?|read)\b"
    r"|\b(?:your|any|some|give\s+me|need|want)\s+(?:advice|recommendations?|suggestions?"
    r"|thoughts|opinion)\b"
    r"|\b(?:is|would)\s+it\s+(?:be\s+)?(?:a\s+good\s+idea|wise|smart|worth\s+it|a\s+mistake)\b"
    r"|\bhow\s+(?:should|would\s+you|can|could)\s+(?:we|i)\b"
    r"|\bwhat(?:'s|’s|\s+is)\s+the\s+(?:best|right|smartest)\s+(?:way|approach|option|move)\b"
    r"|\bwhich\s+(?:option|approach|one|path)\s+(?:should|would)\b",
    re.IGNORECASE,
)


def asks_for_advice(question: str) -> bool:
    """Whether the question asks what to do or what the persona thinks."""
    return bool(_ADVICE.search(question))
