"""Offline call 1A: an extractive, grounded answer (seed 001), streamed word by word.

A message that asks nothing but gives an instruction or states a durable fact is acknowledged:
what will be remembered and for whom, by the rules the compressor and memory extractor apply.
Otherwise candidate sentences come only from the citable passages of the context: file
passages, and the journal when the question is about past conversations. Each is scored by the
share of the question's content words (stemmed, weighted by rarity) it contains; the best few
are quoted verbatim, each followed by its `[Ref: N]`. Below the confidence threshold, or when
nothing matches, the answer is the plain refusal — never a guess.
"""

import asyncio
import re
import time
from collections.abc import AsyncIterator, Hashable

from shared.domain import REFUSAL, ContextBundle, Usage
from shared.providers.base import AnswerInput
from shared.providers.local.acknowledge import acknowledgement
from shared.providers.local.fact_answers import memory_answer
from shared.providers.local.quotes import Candidate, best_sentences, sentences_of
from shared.providers.local.section_answers import section_items
from shared.providers.local.style import answer_style
from shared.providers.local.tool_choice import tool_answer
from shared.text.advice import asks_for_advice
from shared.text.tokens import count_tokens
from shared.text.words import word_pieces, words
from shared.usage import record_call

MIN_CONFIDENCE = 0.3  # seed 001: below this retrieval confidence, refuse
# a summary answer: SUMMARY_SENTENCES for one file; for several, SUMMARY_PER_FILE each, at most
# SUMMARY_MAX_SENTENCES in all (so up to that many files are each quoted once)
SUMMARY_SENTENCES, SUMMARY_PER_FILE, SUMMARY_MAX_SENTENCES = 6, 3, 9
FILE_KINDS = frozenset({"chunk", "attachment"})
SUMMARY_KINDS = frozenset({"file_summary", "section_summary"})
JOURNAL_KINDS = frozenset({"journal", "turn", "recalled", "starred"})
_PAST = re.compile(
    r"\b(we|you|i)\s+(decided|agreed|said|discussed|talked|told|chose|planned)\b|\bdid (we|i|you)\b"
    r"|\b(last time|earlier|before|previously|past conversations?|our conversations?|decisions?)\b",
    re.IGNORECASE,
)


def asks_about_the_past(question: str) -> bool:
    return bool(_PAST.search(question))


def citable_kinds(bundle: ContextBundle, question: str) -> frozenset[str]:
    if bundle.path == "summary":
        return SUMMARY_KINDS | FILE_KINDS
    return FILE_KINDS | JOURNAL_KINDS if asks_about_the_past(question) else FILE_KINDS


def candidates(request: AnswerInput, kinds: frozenset[str] | None = None) -> list[Candidate]:
    """Every quotable sentence of the citable passages (of `kinds`), in bundle order."""
    kinds = kinds or citable_kinds(request.bundle, request.question)
    refs = [
        item.ref
        for section in request.bundle.sections
        for item in section.items
        if item.ref is not None and item.kind in kinds and item.ref in request.passages
    ]
    # a file passage's title names what its sentences are about (a journal's is its arc: no)
    titles = {r.ref: r.title for r in request.bundle.references if r.chunk_id is not None}
    return sentences_of({ref: request.passages[ref] for ref in dict.fromkeys(refs)}, titles)


def summary_sentences(request: AnswerInput) -> list[Candidate]:
    """For summary questions: sentences of the stored summaries, taken from each file in turn
    (every file's first, then every file's second, ...) so that all files are covered, each
    sentence said once (a file's summary lists its sections' summaries, which follow it in the
    bundle); quoted file by file in bundle order."""
    file_of = {r.ref: r.file_id or r.ref for r in request.bundle.references}
    by_file: dict[Hashable, list[Candidate]] = {}
    for candidate in candidates(request):
        if _kind_of(request.bundle, candidate.ref) in SUMMARY_KINDS:
            by_file.setdefault(file_of.get(candidate.ref), []).append(candidate)
    queues = list(by_file.values())[:SUMMARY_MAX_SENTENCES]
    limit = max(SUMMARY_SENTENCES, min(SUMMARY_PER_FILE * len(queues), SUMMARY_MAX_SENTENCES))
    chosen: list[Candidate] = []
    said: list[str] = []
    while len(chosen) < limit and any(queues):
        for queue in queues:
            if len(chosen) < limit and (candidate := _next_unsaid(queue, said)):
                chosen.append(candidate)
    order = {file: index for index, file in enumerate(by_file)}
    return sorted(chosen, key=lambda c: (order[file_of.get(c.ref)], c.rank, c.start))


def _next_unsaid(queue: list[Candidate], said: list[str]) -> Candidate | None:
    """The queue's next sentence that no sentence said already holds (noted as said)."""
    while queue:
        candidate = queue.pop(0)
        phrase = f" {' '.join(words(candidate.text))} "
        if not any(phrase in earlier for earlier in said):
            said.append(phrase)
            return candidate
    return None


def _kind_of(bundle: ContextBundle, ref: int) -> str:
    return next(i.kind for s in bundle.sections for i in s.items if i.ref == ref)


def compose(lead_in: str, chosen: list[Candidate], *, bullets: bool = False) -> str:
    quoted = [f"{' '.join(c.text.split())} [Ref: {c.ref}]" for c in chosen]
    body = "\n".join(f"- {q}" for q in quoted) if bullets else " ".join(quoted)
    return f"{lead_in}\n\n{body}" if lead_in else body


def _names(request: AnswerInput) -> str:
    """What names the cited files themselves: their titles and file names."""
    return " ".join(f"{r.title} {r.filename}" for r in request.bundle.references)


def answer_kind(request: AnswerInput) -> str:
    """The persona's opener that fits: summary, advice (the records, saying so) or fact."""
    if request.bundle.path == "summary":
        return "summary"
    return "advice" if asks_for_advice(request.question) else "fact"


def extractive_answer(request: AnswerInput) -> str | None:
    """The answer text, or None when the sources do not answer the question."""
    if request.bundle.retrieval_confidence < MIN_CONFIDENCE:
        return None
    chosen = summary_sentences(request) if request.bundle.path == "summary" else []
    # "which decisions…", "list the action items": the note's own section, item by item
    listed = [] if chosen else section_items(request.question, candidates(request), _names(request))
    chosen = chosen or listed
    # a specific question, or files without stored summaries yet: quote the best passages;
    # what the conversation said answers when the files do not
    chosen = chosen or best_sentences(request.question, candidates(request))
    if not chosen and request.bundle.path != "summary":
        remembered = candidates(request, FILE_KINDS | JOURNAL_KINDS)
        chosen = best_sentences(request.question, remembered)
    if not chosen:
        return None
    style = answer_style(request.bundle)  # the persona's standing instructions (style.py)
    opening = request.persona.opening(answer_kind(request), request.question)
    lead_in, chosen = style.applied(opening, chosen)
    return compose(lead_in, chosen, bullets=style.bullets or bool(listed))


class LocalAnswerStream:
    def __init__(self, request: AnswerInput, model: str) -> None:
        self._request = request
        self.usage = Usage(model=model)
        self.refused = False

    async def __aiter__(self) -> AsyncIterator[str]:
        started = time.monotonic()
        request = self._request
        answer = (
            await tool_answer(request.question, request.tools)  # "summarise this meeting"
            or acknowledgement(request.persona, request.question)
            or memory_answer(request)  # "what is my name?": the memory fact, before any file
            or extractive_answer(request)
            or memory_answer(request, any_topic=True)
        )
        self.refused = answer is None
        text = REFUSAL if answer is None else answer
        prompt = self._request.question + "".join(
            item.text for s in self._request.bundle.sections for item in s.items
        )
        self.usage = Usage(
            model=self.usage.model,
            prompt_tokens=count_tokens(prompt),
            completion_tokens=count_tokens(text),
        )
        await record_call(
            role="answer",
            provider="local",
            model=self.usage.model,
            prompt_tokens=self.usage.prompt_tokens,
            completion_tokens=self.usage.completion_tokens,
            started=started,
        )
        for piece in word_pieces(text):
            yield piece
            await asyncio.sleep(0)  # let each piece go out before the next


class LocalAnswerer:
    """Offline 1A: extractive, deterministic, cited."""

    def __init__(self, model: str = "artisan-local-1") -> None:
        self.model = model

    def stream_answer(self, request: AnswerInput) -> LocalAnswerStream:
        return LocalAnswerStream(request, self.model)
