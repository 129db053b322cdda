"""The last word on what of an answer leaves, read on the cleaned text exactly as a renderer will
read it (answer_links.py removes markup first; what it removes can bring two parts together):

- a '<' that may open an HTML tag stays only before a bare tag that fetches nothing (`<b>`,
  `</i>`, the `<String>` of `List<String>`); any other gets a space after it, so no renderer
  sees a tag, comment or autolink there;
- a bare address (`https://…`, `www.…`) loses its query string and fragment, where data is
  usually carried, unless the answer's sources hold it as written;
- the address of a reference definition (`[id]: https://…`, `[id]: <…>`, `[id]: /…`) is
  dropped, and the next word is looked at in its place, so `![x][id]` fetches nothing.

Text only ever gains a space here, or loses an address (or its query) between a space and a
space, so nothing this lets out forms a link or a tag with what comes next. Each character
is read at most twice."""

import re
from collections.abc import Callable

from services.chat.link_parts import (
    DEFUSED,
    FETCHING,
    MAX_HELD,
    URL_STARTS,
    ends_url,
    shown_url,
    trim_url,
    without_query,
)

_ORDINARY = re.compile(r"[^<:hHwW]+")
_BARE_TAG = re.compile(r"</?([A-Za-z][A-Za-z0-9-]*)[ \t]*/?>")
_BARE_TAG_START = re.compile(r"</?(?:[A-Za-z][A-Za-z0-9-]*(?:[ \t]*/?)?)?")
_LONGEST_BARE_TAG = 64
_OPENS_MARKUP = re.compile(r"[A-Za-z/!?]")


class OutputGuard:
    """Guards the cleaned answer piece by piece; `allowed` are its sources' addresses."""

    def __init__(self, allowed: frozenset[str]) -> None:
        self._allowed = allowed
        self._out: list[str] = []
        self._last = ""
        self._held: list[str] = []
        self._depth = 0  # unclosed '(' in an address
        self._state: Callable[[str], None] = self._text
        self._definition_line = False  # a definition's address may be on the line after it

    def feed(self, text: str) -> str:
        reading_text, at = self._text, 0
        while at < len(text):
            if self._state == reading_text and (run := _ORDINARY.match(text, at)):
                self._emit(run.group())
                at = run.end()
                continue
            self._state(text[at])
            at += 1
        return self._take()

    def flush(self) -> str:
        while self._state != self._text:
            if self._state == self._in_tag:
                self._not_a_bare_tag()
            elif self._state == self._in_url:
                self._end_url()
            elif self._state == self._in_scheme:
                self._read_again()
            else:
                held, self._held, self._state = "".join(self._held), [], self._text
                self._emit(held)
        return self._take()

    def _emit(self, text: str) -> None:
        if text:
            self._out.append(text)
            self._last = text[-1]

    def _take(self) -> str:
        taken = "".join(self._out)
        self._out.clear()
        return taken

    def _text(self, char: str) -> None:
        if char == "<":
            self._held, self._state = [char], self._in_tag
        elif char == ":" and self._last == "]":
            self._emit(char)
            self._definition_line, self._state = False, self._after_label
        elif char in "hHwW" and not self._last.isalnum():
            self._held, self._state = [char], self._url_start
        else:
            self._emit(char)

    # `[id]: address`: a reference definition's address is dropped, so `![x][id]` goes nowhere

    def _after_label(self, char: str) -> None:
        if char in " \t" or (char == "\n" and not self._definition_line):
            self._definition_line = self._definition_line or char == "\n"
            self._emit(char)
        elif char in "</":
            self._state = self._dropping_address
        elif char.isascii() and char.isalpha():
            self._held, self._state = [char], self._in_scheme
        else:
            self._state = self._text
            self._text(char)

    def _in_scheme(self, char: str) -> None:
        if char == ":":
            self._held, self._state = [], self._dropping_address
        elif ((char.isascii() and char.isalnum()) or char in "+.-") and len(self._held) < 32:
            self._held.append(char)
        else:  # a word, not an address ("[Ref: 1]: Revenue grew"): read as text
            self._read_again()
            self._state(char)

    def _dropping_address(self, char: str) -> None:
        if char.isspace():  # what follows would be the address now: it is looked at too
            self._state = self._after_label
            self._after_label(char)

    def _read_again(self) -> None:
        held, self._held, self._state = "".join(self._held), [], self._text
        for char in held:
            self._state(char)

    # '<'

    def _in_tag(self, char: str) -> None:
        self._held.append(char)
        written = "".join(self._held)
        if bare := _BARE_TAG.fullmatch(written):
            self._held, self._state = [], self._text
            harmless = bare.group(1).lower() not in FETCHING
            self._emit(written if harmless else DEFUSED + written[1:])
        elif len(written) > _LONGEST_BARE_TAG or not _BARE_TAG_START.fullmatch(written):
            self._not_a_bare_tag()

    def _not_a_bare_tag(self) -> None:
        """The '<' is let out, with a space after it when markup could start there; what
        followed it is read again (only the last character may be another '<')."""
        after, self._held, self._state = "".join(self._held[1:]), [], self._text
        self._emit(DEFUSED if _OPENS_MARKUP.match(after) else "<")
        for char in after:
            self._state(char)

    # bare addresses

    def _url_start(self, char: str) -> None:
        self._held.append(char)
        seen = "".join(self._held).lower()
        if seen in URL_STARTS:
            self._depth, self._state = 0, self._in_url
        elif not any(start.startswith(seen) for start in URL_STARTS):
            self._held.pop()  # no address starts inside: each of these follows a letter
            held, self._held, self._state = "".join(self._held), [], self._text
            self._emit(held)
            self._text(char)

    def _in_url(self, char: str) -> None:
        if ends_url(char, self._depth):
            self._end_url()
            return self._text(char)
        self._depth += (char == "(") - (char == ")")
        self._held.append(char)
        if len(self._held) > MAX_HELD:  # too long to be a source's: shown up to its query
            written, self._held = "".join(self._held), []
            shown = without_query(written)
            self._emit(shown)
            self._state = self._dropping_query if len(shown) < len(written) else self._url_path

    def _end_url(self) -> None:
        url, after = trim_url("".join(self._held))
        self._held, self._state = [], self._text
        self._emit(shown_url(url, self._allowed) + after)

    def _url_path(self, char: str) -> None:
        if char in "?#":
            self._state = self._dropping_query
        elif ends_url(char, self._depth):
            self._state = self._text
            self._text(char)
        else:
            self._depth += (char == "(") - (char == ")")
            self._emit(char)

    def _dropping_query(self, char: str) -> None:
        if ends_url(char, self._depth):
            self._state = self._text
            self._text(char)
        else:
            self._depth += (char == "(") - (char == ")")
