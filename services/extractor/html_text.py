"""HTML to plain text with markdown-style headings, using only the standard library."""

import re
from html.parser import HTMLParser

_SKIPPED = frozenset({"script", "style", "head", "title", "noscript", "template", "svg", "iframe"})
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
# tags that end a paragraph (blank line) versus ones that only end a line
_BLOCKS = frozenset(
    {
        "p", "div", "section", "article", "main", "aside", "header", "footer", "nav",
        "blockquote", "pre", "table", "ul", "ol", "dl", "figure", "figcaption", "form",
        "hr", "address", "details", "summary", "body",
    }
)  # fmt: skip
_LINES = frozenset({"li", "tr", "dt", "dd", "caption"})
_CELLS = frozenset({"td", "th"})
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([\w-]+)""", re.IGNORECASE)


def declared_charset(data: bytes) -> str | None:
    """The charset an HTML document declares in a <meta> tag near its start, if any."""
    match = _CHARSET.search(data[:4096])
    return match.group(1).decode("ascii") if match else None


def html_to_text(source: str) -> str:
    """Visible text of an HTML document; headings as '#' lines, blocks as paragraphs."""
    parser = _TextParser()
    parser.feed(source)
    parser.close()
    return parser.text()


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._out: list[str] = []
        self._line: list[str] = []
        self._pending_newlines = 0
        self._skipping: list[str] = []
        self._pre_depth = 0
        self._heading_level = 0
        self._cells_in_row = 0

    def text(self) -> str:
        self._flush()
        return "".join(self._out)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":
            self._skipping.clear()  # an unclosed <head> ends where the body starts
        if tag in _SKIPPED:
            self._skipping.append(tag)
        elif not self._skipping:
            self._open(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _SKIPPED and not self._skipping:
            self._open(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._skipping:
            last = len(self._skipping) - 1 - self._skipping[::-1].index(tag)
            del self._skipping[last:]
            return
        if self._skipping:
            return
        if tag in _HEADINGS:
            self._flush()
            self._heading_level = 0
            self._break(2)
        elif tag == "pre":
            self._pre_depth = max(0, self._pre_depth - 1)
            self._break(2)
        elif tag in _BLOCKS:
            self._break(2)
        elif tag in _LINES:
            self._break(1)

    def handle_data(self, data: str) -> None:
        if self._skipping:
            return
        if self._pre_depth:
            self._emit_preformatted(data)
        else:
            self._line.append(data)

    def _open(self, tag: str) -> None:
        if tag in _HEADINGS:
            self._break(2)
            self._heading_level = _HEADINGS[tag]
        elif tag == "br":
            self._break(1)
        elif tag == "pre":
            self._break(2)
            self._pre_depth += 1
        elif tag == "li":
            self._break(1)
            self._line.append("- ")
        elif tag == "tr":
            self._break(1)
            self._cells_in_row = 0
        elif tag in _CELLS:
            if self._cells_in_row:
                self._line.append(" | ")
            self._cells_in_row += 1
        elif tag in _BLOCKS or tag in _LINES:
            self._break(2 if tag in _BLOCKS else 1)

    def _break(self, newlines: int) -> None:
        """End the current line; the next text starts after at least `newlines` line breaks."""
        self._flush()
        self._pending_newlines = max(self._pending_newlines, newlines)

    def _flush(self) -> None:
        line = " ".join("".join(self._line).split())
        self._line = []
        if line in ("", "-", "|"):
            return
        if self._heading_level:
            line = f"{'#' * self._heading_level} {line}"
        self._write(line)

    def _emit_preformatted(self, data: str) -> None:
        self._flush()
        lines = data.strip("\n").split("\n")
        for index, line in enumerate(lines):
            if index:
                self._pending_newlines = max(self._pending_newlines, 1)
            if line.strip():
                self._write(line.rstrip())

    def _write(self, line: str) -> None:
        if self._out:
            self._out.append("\n" * max(1, self._pending_newlines))
        self._out.append(line)
        self._pending_newlines = 0
