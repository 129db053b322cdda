"""The offline answer follows the persona's standing instructions (P3) of three kinds:

- **brief** ("short answers", "be brief", "keep it short", "concise", "one sentence", "tl;dr"):
  the answer is its single best sentence, without the persona's opening line;
- **word limit** ("under 50 words", "at most 100 words", "no more than 80 words"): the best
  sentences that fit in that many words (always at least one), without the opening line;
- **bullets** ("bullet points", "as a list"): each quoted sentence on a line of its own, "- ".

An instruction that turns a kind down ("stop using bullet points", "no more short answers",
"longer answers", "more detail") switches it off; the newest instruction wins. Every other
instruction (language, tone, analogies) needs a model: the offline answerer quotes the files'
own sentences as they are.
"""

import re
from dataclasses import dataclass

from shared.domain import ContextBundle
from shared.providers.local.quotes import Candidate
from shared.text.words import words

INSTRUCTION_KIND = "instruction"
_SAID = re.compile(r"^Instruction for [^(]*\(given [^)]*\):\s*")
_NEGATION = r"\b(?:don'?t|do not|never|no|stop|avoid|quit|without|not|no more|less)\b[^.;!?]{0,30}"
_BRIEF = re.compile(
    r"\b(?:short(?:er)? (?:answers?|responses?|replies|reply)|keep (?:it|them|things|answers"
    r"|responses|replies|your answers|your replies) (?:short|brief|tight|concise|crisp)"
    r"|be (?:brief|concise|succinct|short)|brief(?:ly)?|concise(?:ly)?|succinct(?:ly)?"
    r"|one[- ]sentence|a single sentence|one[- ]liners?|tl;?dr|to the point)\b"
    r"|\b(?:avoid|no|don'?t|never|stop|without)\b[^.;!?]{0,20}\b(?:long-winded|verbose|wordy"
    r"|rambl\w*|waffl\w*)",
    re.IGNORECASE,
)
_NOT_BRIEF = re.compile(
    rf"{_NEGATION}\b(?:short|brief|concise|succinct|one[- ]sentence)\b"
    r"|\b(?:longer|more detail(?:ed)?|in (?:more )?detail|in depth|elaborate|thorough"
    r"|comprehensive|long answers|full answers)\b",
    re.IGNORECASE,
)
_WORD_LIMIT = re.compile(
    r"\b(?:under|below|at most|no more than|max(?:imum)?(?: of)?|within|fewer than|less than"
    r"|up to)\s+(?P<words>\d{1,4})\s+words\b",
    re.IGNORECASE,
)
_BULLETS = re.compile(
    r"\b(?:bullet(?:ed|s| points?| lists?)?|as (?:a )?lists?|in list form|numbered lists?)\b",
    re.IGNORECASE,
)
_NOT_BULLETS = re.compile(
    rf"{_NEGATION}\b(?:bullet(?:ed|s| points?| lists?)?|lists?)\b"
    r"|\b(?:prose|full sentences|paragraphs) (?:instead|only)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Style:
    brief: bool = False
    word_limit: int | None = None
    bullets: bool = False

    def applied(self, lead_in: str, chosen: list[Candidate]) -> tuple[str, list[Candidate]]:
        """The opening line and the sentences this style keeps."""
        if self.brief:
            return "", chosen[:1]
        if self.word_limit is not None:
            kept, count = [], 0
            for candidate in chosen:
                count += len(words(candidate.text))
                if kept and count > self.word_limit:
                    break
                kept.append(candidate)
            return "", kept
        return lead_in, chosen


def answer_style(bundle: ContextBundle) -> Style:
    """The style the bundle's instructions ask for, oldest first, so the newest wins."""
    style = Style()
    for section in bundle.sections:
        for item in section.items:
            if item.kind == INSTRUCTION_KIND:
                style = followed(style, _SAID.sub("", item.text))
    return style


def followed(style: Style, instruction: str) -> Style:
    """The style after one instruction (its words as the user gave them)."""
    brief, limit, bullets = style.brief, style.word_limit, style.bullets
    if _NOT_BRIEF.search(instruction):
        brief, limit = False, None
    elif limit_words := _WORD_LIMIT.search(instruction):
        brief, limit = False, int(limit_words.group("words"))
    elif _BRIEF.search(instruction):
        brief, limit = True, None
    if _NOT_BULLETS.search(instruction):
        bullets = False
    elif _BULLETS.search(instruction):
        bullets = True
    return Style(brief=brief, word_limit=limit, bullets=bullets)
