"""Text as every file's text is stored (normalised), and the text of a small UTF-8 note, read
where it is uploaded: such a file skips the extractor, whose hop (a bus message, a read of the
bytes, a write of the text) costs many times the decoding it would do."""

import re

from shared.formats import extension_of

PLAIN_TEXT_FORMATS = frozenset({".txt", ".md", ".rst", ".log"})
# decoding and normalising this much takes well under a millisecond: nothing an upload waits for
READ_AT_UPLOAD_MAX_BYTES = 64 * 1024

# C0 controls other than tab and newline carry no meaning in stored text
_STRAY_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f]")
_EXCESS_BLANK_LINES = re.compile(r"\n(?:[ \t]*\n){3,}")


def normalise_text(text: str) -> str:
    """'\\n' line endings, no control characters, at most two blank lines in a row."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\f", "\n").replace("\v", "\n")
    text = _STRAY_CONTROLS.sub("", text.lstrip("\ufeff"))
    text = _EXCESS_BLANK_LINES.sub("\n\n\n", text)
    return text.strip("\n").rstrip() + "\n"


def text_at_upload(filename: str, data: bytes, *, max_chars: int) -> str | None:
    """The stored text of a small plain-text file in UTF-8, the same the extractor would store;
    None for anything the extractor must judge (another encoding, control characters that may
    mean binary data, no text at all, more than `max_chars`), or that is not small plain text."""
    if len(data) > READ_AT_UPLOAD_MAX_BYTES or extension_of(filename) not in PLAIN_TEXT_FORMATS:
        return None
    try:
        decoded = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if _STRAY_CONTROLS.search(decoded):
        return None
    text = normalise_text(decoded)
    if not text.strip() or len(text) > max_chars:
        return None
    return text
