"""What the prompts are given: long texts shortened, spans and cuts written as JSON."""

import json
from collections.abc import Sequence
from dataclasses import asdict

from shared.domain import ArtisanCut, ChunkSpan, TurnCut


def excerpt(text: str, limit: int) -> str:
    """The text, or its beginning, middle and end with the omissions marked, in `limit` chars.

    A classifier or summariser judges a 2 MB file from a representative sample rather than
    overflowing the model's context; the prompts explain the omission marker.
    """
    if len(text) <= limit:
        return text
    head, middle, tail = limit // 2, limit // 4, limit // 4
    middle_start = (len(text) - middle) // 2
    first_gap = middle_start - head
    second_gap = len(text) - tail - (middle_start + middle)
    return (
        f"{text[:head]}\n\n[… {first_gap:,} characters omitted …]\n\n"
        f"{text[middle_start : middle_start + middle]}\n\n"
        f"[… {second_gap:,} characters omitted …]\n\n{text[len(text) - tail :]}"
    )


def spans_json(spans: Sequence[ChunkSpan]) -> str:
    """Chunks as the chunking prompts show them: one JSON object per line, easy to compare."""
    rows = ",\n".join("  " + json.dumps(asdict(span), ensure_ascii=False) for span in spans)
    return '{"chunks": [\n' + rows + "\n]}"


def cut_json(cut: ArtisanCut | TurnCut) -> str:
    fields = cut.model_dump() if isinstance(cut, TurnCut) else asdict(cut)
    return json.dumps(fields, ensure_ascii=False, indent=2)


def sections_text(sections: Sequence[tuple[str, str]]) -> str:
    """'Section N: title' and 'Summary: ...' lines, a blank line between sections, in order."""
    return "\n\n".join(
        f"Section {number}: {' '.join(title.split()) or 'Untitled'}\n"
        f"Summary: {' '.join(summary.split())}"
        for number, (title, summary) in enumerate(sections, start=1)
    )


def window_note(index: int, count: int, start: int, end: int, length: int) -> str:
    """Tells the model where a window sits, so a cut-off first or last sentence is expected."""
    if count == 1:
        return "This is the complete document."
    return (
        f"This is part {index + 1} of {count} of a longer document: its characters "
        f"{start:,} to {end:,} of {length:,}. It may begin or end in the middle of a sentence; "
        "chunk this part as it is, with offsets relative to its own first character."
    )
