"""Filling the context under its token cap: priority order, no duplicates, citations numbered.

The rules (seed 002; the cap is a maximum, not a target):
- sections are filled in the order given (P1 → P2 → P3 → P4 → P5 → files), each item in order;
- an item whose identity (turn, fact, chunk or file id) already entered, or is excluded, is
  skipped silently: nothing enters twice;
- an item that does not fit in what is left of the cap is left out and counted in its section's
  `truncated`; later, smaller items may still fit, so lower priorities only get what higher ones
  left;
- a cuttable item (a P1 turn) too long for what is left is cut to fit and ends with an ellipsis;
- an item's tokens are its text's plus ITEM_OVERHEAD (its `[Ref: N]` marker and separator), and a
  section that holds items costs SECTION_OVERHEAD more (its heading), so the bundle's
  total_tokens, the sum of its sections', bounds the rendered prompt context;
- citable items get `ref` 1, 2, ... in order of appearance, and their Citation in `references`.
"""

from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from uuid import UUID

from shared.contracts import Citation, ContextItem, ContextSection
from shared.text.tokens import count_tokens

ITEM_OVERHEAD = 6
SECTION_OVERHEAD = 8
ELLIPSIS = " …"
MIN_CUT_TOKENS = 24  # a turn cut shorter than this says nothing: leave it out instead
REMEMBERED_COUNTS = 20_000  # item texts whose token counts stay known (see text_tokens)


@dataclass
class Candidate:
    """Something that could enter the context, before the budget decides."""

    kind: str
    id: UUID
    text: str
    created_at: datetime | None = None
    score: float | None = None
    citation: dict | None = None  # Citation fields but `ref`, when the item can be cited
    cuttable: bool = False
    key: object = None  # identity for "nothing enters twice" when not the id alone

    @property
    def identity(self) -> object:
        return self.key if self.key is not None else self.id


@dataclass
class SectionPlan:
    name: str
    priority: str
    candidates: list[Candidate] = field(default_factory=list)


@dataclass
class Filled:
    sections: list[ContextSection]
    references: list[Citation]
    total_tokens: int
    loaded: list[Candidate]  # what entered, in order


def fill(plans: list[SectionPlan], cap: int, exclude: frozenset[UUID] = frozenset()) -> Filled:
    """Fill sections in order under `cap` tokens (see the module docstring for the rules)."""
    seen: set[object] = set(exclude)
    sections: list[ContextSection] = []
    references: list[Citation] = []
    loaded: list[Candidate] = []
    total = 0
    for plan in plans:
        section = ContextSection(name=plan.name, priority=plan.priority)
        for candidate in plan.candidates:
            if candidate.identity in seen:
                continue
            header = 0 if section.items else SECTION_OVERHEAD
            room = cap - total - header - ITEM_OVERHEAD
            text = candidate.text
            tokens = text_tokens(text)
            if tokens > room and candidate.cuttable:
                text = cut_to_fit(text, room)
                tokens = count_tokens(text) if text else tokens
            if not text or tokens > room:
                section.truncated += 1
                continue
            seen.add(candidate.identity)
            ref = None
            if candidate.citation is not None:
                ref = len(references) + 1
                references.append(Citation(ref=ref, **candidate.citation))
            item_tokens = tokens + ITEM_OVERHEAD
            section.items.append(
                ContextItem(
                    kind=candidate.kind,
                    id=candidate.id,
                    text=text,
                    tokens=item_tokens,
                    ref=ref,
                    score=candidate.score,
                    created_at=candidate.created_at,
                )
            )
            section.tokens += item_tokens + header
            total += item_tokens + header
            loaded.append(candidate)
        sections.append(section)
    return Filled(sections, references, total, loaded)


@lru_cache(maxsize=REMEMBERED_COUNTS)
def text_tokens(text: str) -> int:
    """count_tokens, remembered: most items come back question after question (the last turns,
    the last 100 journal entries), and counting is a regex pass over every character."""
    return count_tokens(text)


def cut_to_fit(text: str, budget: int) -> str:
    """The longest prefix of `text` (plus an ellipsis) within `budget` tokens; '' if too small."""
    if budget < MIN_CUT_TOKENS:
        return ""
    low, high = 0, len(text)
    while low < high:  # the longest prefix whose cut form fits (token counts grow with length)
        middle = (low + high + 1) // 2
        if count_tokens(text[:middle].rstrip() + ELLIPSIS) <= budget:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + ELLIPSIS if low else ""
