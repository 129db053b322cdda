"""The pieces answer_links.py tells apart: web addresses written as text, and what follows a `<`
(an HTML tag, an autolink such as `<https://…>`, or neither). Every reader here looks at each
character once and holds at most MAX_HELD of them."""

import string
from collections.abc import Iterable
from dataclasses import dataclass

MAX_HELD = 2000  # the longest run of text held back before it is let out (or dropped)
URL_STARTS = ("http://", "https://", "www.")  # what renderers turn into links by themselves
_URL_END = frozenset("<>\"'`[]")
_TRAILING = ".,:;!?*_~"  # a sentence's punctuation after an address is not part of it
_TAG_START = frozenset(string.ascii_letters + "/!?")
_NAME = frozenset(string.ascii_letters + string.digits + "-")
_SPACE = frozenset(" \t\n")
DEFUSED = "< "  # no tag, comment or autolink starts with a space after its '<', in any renderer
# elements whose content fetches or runs even without an attribute (CSS's url(), SVG, …), and
# those that fetch with one: dropped even when written bare
FETCHING = frozenset(
    {
        "a",
        "audio",
        "base",
        "embed",
        "form",
        "frame",
        "frameset",
        "iframe",
        "image",
        "img",
        "link",
        "math",
        "meta",
        "noembed",
        "noframes",
        "noscript",
        "object",
        "picture",
        "plaintext",
        "portal",
        "script",
        "source",
        "style",
        "svg",
        "template",
        "textarea",
        "title",
        "video",
        "xmp",
    }
)


def ends_url(char: str, depth: int) -> bool:
    """True when `char` ends an address whose unclosed '(' number `depth`."""
    return char.isspace() or char in _URL_END or (char == ")" and depth <= 0)


def trim_url(written: str) -> tuple[str, str]:
    """The address and the punctuation after it that ends the sentence instead."""
    url = written.rstrip(_TRAILING)
    return url, written[len(url) :]


def without_query(url: str) -> str:
    """The address without its query string and fragment: where data is usually carried."""
    cut = min((at for at in (url.find("?"), url.find("#")) if at >= 0), default=len(url))
    return url[:cut]


def shown_url(url: str, allowed: frozenset[str]) -> str:
    return url if url in allowed else without_query(url)


def urls_in(texts: Iterable[str]) -> frozenset[str]:
    """Every address written in the texts, read as an answer's addresses are read."""
    found = set()
    for text in texts:
        lowered = text.lower()
        for start in URL_STARTS:
            at = lowered.find(start)
            while at >= 0:
                if at == 0 or not text[at - 1].isalnum():
                    found.add(trim_url(text[at : _url_end(text, at)])[0])
                at = lowered.find(start, at + 1)
    return frozenset(found)


def _url_end(text: str, start: int) -> int:
    depth, at = 0, start
    while at < len(text) and at - start <= MAX_HELD and not ends_url(text[at], depth):
        depth += (text[at] == "(") - (text[at] == ")")
        at += 1
    return at


def link_address(destination: str) -> str:
    """The address of a link's `(destination "title")`."""
    destination = destination.strip()
    if destination.startswith("<"):
        return destination[1 : destination.find(">")] if ">" in destination else ""
    return destination.split(maxsplit=1)[0] if destination else ""


@dataclass(frozen=True)
class Verdict:
    """What a `<…` turned out to be: `keep` is let out as written, `reread` read again as plain
    text (where a '<' opens nothing), and unless `consumed` the deciding character after it."""

    keep: str = ""
    reread: str = ""
    consumed: bool = True


class TagReader:
    """Reads what follows a '<' (CommonMark's raw HTML and autolinks, simplified towards
    removing): a tag with attributes, a comment or declaration, or a FETCHING element is
    dropped; a bare tag (`<b>`, the `<String>` of `List<String>`) is kept; an autolink is read
    again as text; anything else is text, but a '<' never proven harmless gets a space after it
    (DEFUSED). `plain`: held text read again, where a '<' that may open a tag is defused at once."""

    def __init__(self, *, plain: bool) -> None:
        self._held = ["<"]
        self._name: list[str] = []
        self._plain = plain
        self._closing = False
        self._attributes = False
        self._part = self._after_bracket

    def step(self, char: str) -> Verdict | None:
        """None while it may still be a tag; then the verdict."""
        return self._part(char)

    def end(self) -> Verdict:
        """The verdict when the answer ends before the tag does."""
        if self._part == self._after_bracket:
            return Verdict(keep="<")
        if self._part in (self._after_slash, self._in_name):
            return Verdict(keep="<", reread="".join(self._held[1:]))
        return self._unsure()

    def _after_bracket(self, char: str) -> Verdict | None:
        if char not in _TAG_START:
            return Verdict(keep="<", consumed=False)
        if self._plain:
            return Verdict(keep=DEFUSED, consumed=False)
        self._held.append(char)
        if char == "/":
            self._closing, self._part = True, self._after_slash
        elif char in "!?":
            self._part = self._in_comment
        else:
            self._name.append(char)
            self._part = self._in_name
        return None

    def _after_slash(self, char: str) -> Verdict | None:
        if char.isascii() and char.isalpha():
            self._part = self._in_name
            return self._in_name(char)
        return Verdict(keep="<", reread="/", consumed=False)

    def _in_name(self, char: str) -> Verdict | None:
        if char in _NAME:
            self._held.append(char)
            self._name.append(char)
            return self._within_bound()
        if char == ">":
            return self._complete()
        if char in _SPACE or char == "/":
            self._held.append(char)
            self._part = self._in_attributes
            return None
        if char == ":" and not self._closing:
            self._held.append(char)
            self._part = self._in_autolink
            return None
        return Verdict(keep="<", reread="".join(self._held[1:]), consumed=False)

    def _in_attributes(self, char: str) -> Verdict | None:
        if char == ">":
            return self._complete()
        if char == "\n" and self._held[-1] == "\n":
            return self._unsure()  # a blank line: no tag spans paragraphs
        self._held.append(char)
        self._attributes = self._attributes or (char not in _SPACE and char != "/")
        return self._within_bound()

    def _in_comment(self, char: str) -> Verdict | None:
        if char == ">":
            return Verdict()
        self._held.append(char)
        return self._within_bound()

    def _in_autolink(self, char: str) -> Verdict | None:
        if char == ">":
            return Verdict(reread="".join(self._held[1:]))
        if char in _SPACE or char == "<":
            return Verdict(keep="<", reread="".join(self._held[1:]), consumed=False)
        self._held.append(char)
        return self._within_bound()

    def _complete(self) -> Verdict:
        name = "".join(self._name).lower()
        if self._attributes or name in FETCHING:
            return Verdict()
        return Verdict(keep="".join(self._held) + ">")

    def _within_bound(self) -> Verdict | None:
        return self._unsure() if len(self._held) > MAX_HELD else None

    def _unsure(self) -> Verdict:
        """Held too long to tell: a space after the '<', so that nothing after it becomes a tag."""
        return Verdict(keep=DEFUSED, reread="".join(self._held[1:]))
