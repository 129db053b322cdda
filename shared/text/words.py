"""Words of a text: lower-cased words, stop words, light stems, word-boundary shortening."""

import re
from functools import lru_cache


def word_set(words_text: str) -> frozenset[str]:
    """The whitespace-separated words of a literal, as a set (keeps long word lists readable)."""
    return frozenset(words_text.split())


STOP_WORDS: frozenset[str] = word_set(
    """
    a about above after again against all also am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each else ever few for from further get gets got had hadn't
    has hasn't have haven't having he he'd he'll he's her here here's hers herself him himself his
    how how's however i i'd i'll i'm i've if in into is isn't it it's its itself just let's like
    may me might more most much must mustn't my myself no nor not now of off on once only or
    other ought our ours ourselves out over own quite rather really said same say says shall
    shan't she she'd she'll she's should shouldn't so some such than that that's the their theirs
    them themselves then there there's these they they'd they'll they're they've this those
    through to too under until up upon us very via was wasn't we we'd we'll we're we've were
    weren't what what's when when's where where's whether which while who who's whom whose why
    why's will with won't would wouldn't yes yet you you'd you'll you're you've your yours
    yourself yourselves well okay ok um uh yeah oh
    """
)

WORD_PATTERN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")
# suffix → replacement, longest first; enough to make price/prices/pricing/priced collide
_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("ational", "ate"),
    ("ization", "ize"),
    ("fulness", "ful"),
    ("iveness", "ive"),
    ("ations", "ate"),
    ("ation", "ate"),
    ("ingly", ""),
    ("edly", ""),
    ("ings", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("ing", ""),
    ("es", ""),
    ("ed", ""),
    ("ly", ""),
    ("s", ""),
)
_KEEP_FINAL_S = ("ss", "us", "is")
_MIN_STEM = 3


def words(text: str) -> list[str]:
    """Lower-cased words of a text (letters and digits; inner apostrophes kept)."""
    return WORD_PATTERN.findall(text.lower().replace("’", "'"))


def content_words(text: str) -> list[str]:
    """Lower-cased words that are not stop words."""
    return [word for word in words(text) if word not in STOP_WORDS]


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """A light suffix-stripping stem: 'pricing', 'prices' and 'price' all give 'pric'; a
    possessive is its noun ("canada's" is 'canada')."""
    word = word.removesuffix("'s")
    if len(word) <= _MIN_STEM or not word.isalpha():
        return word
    for suffix, replacement in _SUFFIXES:
        if not word.endswith(suffix):
            continue
        if suffix == "s" and word.endswith(_KEEP_FINAL_S):
            break
        base = word[: -len(suffix)] + replacement
        if len(base) < _MIN_STEM:
            continue  # 'uses' is not 'us' + 'es': try a shorter suffix
        word = _undouble(base) if suffix in ("ing", "ed", "ings") else base
        break
    return word[:-1] if word.endswith("e") and len(word) > _MIN_STEM else word


def _undouble(base: str) -> str:
    """'planning' → 'plann' → 'plan'; 'falling' keeps its 'll'."""
    if len(base) > _MIN_STEM and base[-1] == base[-2] and base[-1] not in "lsz":
        return base[:-1]
    return base


def shorten(text: str, limit: int, ellipsis: str = "") -> str:
    """Text cut at a word boundary to at most `limit` characters (ellipsis included)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    room = limit - len(ellipsis)
    space = text.rfind(" ", 0, room + 1)
    # cut at the last space unless that throws away most of the room (one very long word)
    cut = text[:space] if space >= room // 2 else text[:room]
    return cut.rstrip(" ,;:-–—") + ellipsis


def word_pieces(text: str) -> list[str]:
    """The text as streamed: words with their following whitespace (they join back exactly)."""
    return re.findall(r"\s*\S+\s*", text) if text.strip() else []
