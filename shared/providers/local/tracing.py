"""Tracing a compressed text back to its source: its words and its figures must come from there."""

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from shared.providers.local.artisan_cut import NUMBER
from shared.text.sentences import sentence_spans
from shared.text.words import content_words, stem, word_set, words

# a sentence traces to its source when at least this share of its content words occur there
TRACEABLE_SHARE = 0.6
# words a faithful paraphrase adds about who said what; they never make a sentence invented
_REPORTING_WORDS = word_set(
    """
    boss user persona expert speaker ask asks asked want wants wanted say says said tell tells
    told suggest suggests suggested recommend recommends recommended note notes noted explain
    explains explained agree agrees agreed propose proposes proposed mention mentions mentioned
    """
)
_SCALES = {"k": Decimal(1_000), "m": Decimal(1_000_000), "b": Decimal(1_000_000_000)}
_SCALE_WORDS = re.compile(r"(\d)\s*(thousand|million|billion)\b", re.IGNORECASE)
_SCALE_SUFFIX = {"thousand": "k", "million": "m", "billion": "b"}
_SMALL_NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_SPELLED = {word: str(value) for value, word in enumerate((*_SMALL_NUMBERS, "ten", "eleven"))}
_TRAILING_ELLIPSIS = re.compile(r"\s*…\s*$")


@dataclass(frozen=True)
class Source:
    """What a compressed text may draw on: the stems and the figures of its source."""

    stems: frozenset[str]
    figures: frozenset[str]

    @classmethod
    def of(cls, *texts: str) -> "Source":
        joined = "\n".join(texts)
        stems = frozenset(stem(word) for word in words(joined))
        return cls(stems, frozenset(source_figures(joined)))


def source_figures(text: str) -> set[str]:
    """Every canonical form of every figure in a text, spelled-out small numbers included."""
    text = with_scale_suffixes(text)
    figures: set[str] = set()
    for token in NUMBER.findall(text):
        figures |= figure_forms(token)
    figures |= {_SPELLED[word] for word in words(text) if word in _SPELLED}
    return figures


def with_scale_suffixes(text: str) -> str:
    """'200 thousand' → '200k', '1.5 million' → '1.5m': one written form per figure."""
    return _SCALE_WORDS.sub(
        lambda match: match.group(1) + _SCALE_SUFFIX[match.group(2).lower()], text
    )


def figure_forms(token: str) -> set[str]:
    """'$200k' gives {'200', '200000'}; '1,000' gives {'1000'}; '49.0%' gives {'49'}."""
    digits = re.sub(r"[^\d.]", "", token).strip(".")
    try:
        value = Decimal(digits)
    except InvalidOperation:
        return set()
    forms = {_canonical(value)}
    scale = _SCALES.get(token.strip().rstrip(",")[-1:].lower())
    if scale is not None:
        forms.add(_canonical(value * scale))
    return forms


def _canonical(value: Decimal) -> str:
    return format(value.normalize(), "f")


def invented_figures(fragment: str, source: Source) -> list[str]:
    """The figures of a fragment that its source never states, in any form."""
    fragment = with_scale_suffixes(fragment)
    return [
        token
        for token in NUMBER.findall(fragment)
        if (forms := figure_forms(token)) and not forms & source.figures
    ]


def is_traceable(sentence: str, source: Source) -> bool:
    """Most of the sentence's words occur in the source, and every figure in it does."""
    if invented_figures(sentence, source):
        return False
    # figures were checked above; the words that remain must come from the source
    vocabulary = [word for word in content_words(sentence) if not word[:1].isdigit()]
    vocabulary = vocabulary or [word for word in words(sentence) if not word[:1].isdigit()]
    if not vocabulary:
        return False
    found = sum(stem(word) in source.stems or word in _REPORTING_WORDS for word in vocabulary)
    return found / len(vocabulary) >= TRACEABLE_SHARE


def traced_sentences(text: str, source: Source) -> list[str]:
    """The sentences of a compressed text that trace to the source, in order."""
    text = _TRAILING_ELLIPSIS.sub("", text)
    sentences = (" ".join(text[start:end].split()) for start, end in sentence_spans(text))
    return [sentence for sentence in sentences if is_traceable(sentence, source)]


def without_invented_clauses(arc: str, source: Source) -> str:
    """The arc without the clauses that state a figure the source never states."""
    pieces = re.split(r"(\s*(?:;|—|→|·|\|)\s*|:\s+|,\s+)", arc)
    clauses, separators = pieces[0::2], [*pieces[1::2], ""]
    kept = [
        clause + separator
        for clause, separator in zip(clauses, separators, strict=True)
        if not invented_figures(clause, source)
    ]
    return "".join(kept).strip(" :;,—→·|")
