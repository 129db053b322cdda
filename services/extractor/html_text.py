"""HTML to plain text with markdown-style headings, parsed by libxml2 (lxml) in linear time."""

import re

from lxml import etree

from services.extractor.errors import ExtractionError

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
# [^<>] keeps each attempt inside one tag, so hostile input cannot make the search quadratic
_CHARSET = re.compile(rb"""<meta[^<>]+charset\s*=\s*["']?([\w-]+)""", re.IGNORECASE)
# libxml2 matches an end tag against every open element, so nesting must be bounded for the parse to
# stay linear; browsers stop nesting at this depth for the same reason, so no real page goes deeper
MAX_NESTING_DEPTH = 512


def declared_charset(data: bytes) -> str | None:
    """The charset an HTML document declares in a <meta> tag near its start, if any."""
    match = _CHARSET.search(data[:4096])
    return match.group(1).decode("ascii") if match else None


def html_to_text(source: str) -> str:
    """Visible text of an HTML document; headings as '#' lines, blocks as paragraphs."""
    # libxml2's HTML parser is an HTML5 tokenizer plus simple auto-closing rules, streamed into a
    # target without building a tree; the full HTML5 tree algorithm (lexbor in selectolax,
    # html5ever) is quadratic on deep nesting and cubic on misnested formatting tags
    parser = etree.HTMLParser(target=_TextCollector(), no_network=True)
    parser.feed(source)  # an ExtractionError raised by the target comes out here
    return parser.close()


class _TextCollector:
    """lxml parser target: turns start/end/data events into lines and paragraphs."""

    def __init__(self) -> None:
        self._out: list[str] = []
        self._line: list[str] = []
        self._text: list[str] = []  # data since the last tag; libxml2 may deliver it in pieces
        self._pending_newlines = 0
        self._depth = 0
        self._skip_depth = 0
        self._pre_depth = 0
        self._heading_level = 0
        self._cells_in_row = 0

    def start(self, tag: str, attrib: object) -> None:
        self._depth += 1
        if self._depth > MAX_NESTING_DEPTH:
            raise ExtractionError(
                f"the HTML nests elements more than {MAX_NESTING_DEPTH} levels deep, which no real "
                "page needs; save the page's text as .txt and upload that instead"
            )
        self._take_text()
        if self._skip_depth or tag in _SKIPPED:
            self._skip_depth += 1
        else:
            self._open(tag)

    def end(self, tag: str) -> None:
        self._depth -= 1
        self._take_text()
        if self._skip_depth:
            self._skip_depth -= 1
        else:
            self._close(tag)

    def data(self, data: str) -> None:
        if not self._skip_depth:
            self._text.append(data)

    def close(self) -> str:
        self._take_text()
        self._flush()
        return "".join(self._out)

    def _take_text(self) -> None:
        if not self._text:
            return
        data = "".join(self._text)
        self._text = []
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

    def _close(self, tag: str) -> None:
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
