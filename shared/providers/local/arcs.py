"""Decision arcs are search keys of 50-150 characters: fit any arc into that band."""

from shared.text.words import shorten

ARC_MIN_CHARS = 50
ARC_MAX_CHARS = 150
_SEPARATORS = " :;,—→·"
_LAST_PAD = "no decision, figure or instruction stated"


def fit_arc(arc: str, pads: list[str]) -> str:
    """The arc padded from `pads` in order until 50 characters, trimmed at a word boundary."""
    arc = " ".join(arc.split()).strip(_SEPARATORS)
    for pad in [*pads, _LAST_PAD]:
        if len(arc) >= ARC_MIN_CHARS:
            break
        pad = " ".join(pad.split()).strip(_SEPARATORS)
        if pad and pad.lower() not in arc.lower():  # a pad the arc already says adds nothing
            arc = f"{arc} · {pad}" if arc else pad
    arc = shorten(arc, ARC_MAX_CHARS).rstrip(_SEPARATORS)
    if len(arc) < ARC_MIN_CHARS:  # every pad was already there, or trimming ate too much
        arc = shorten(f"{arc} · short exchange with nothing further stated", ARC_MAX_CHARS)
    return arc
