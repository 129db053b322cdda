"""Message contracts: de-duplication ids and progress arithmetic."""

import json
import uuid

from shared import domain
from shared.contracts import (
    ChatDone,
    ChunkReady,
    Citation,
    ContextBundle,
    ContextItem,
    ContextSection,
    FileUploaded,
    Subject,
    Usage,
    progress_subject,
)
from shared.progress import chunk_progress, stage_message

FILE = uuid.UUID(int=1)
USER = uuid.UUID(int=2)


def test_message_ids_differ_by_stage_and_attempt_only() -> None:
    first = FileUploaded(file_id=FILE, user_id=USER, attempt=1)
    again = FileUploaded(file_id=FILE, user_id=USER, attempt=1)
    retry = FileUploaded(file_id=FILE, user_id=USER, attempt=2)
    assert first.message_id(Subject.FILE_UPLOADED) == again.message_id(Subject.FILE_UPLOADED)
    assert first.message_id(Subject.FILE_UPLOADED) != retry.message_id(Subject.FILE_UPLOADED)
    assert first.message_id(Subject.FILE_UPLOADED) != first.message_id(Subject.FILE_EXTRACTED)


def test_chunk_message_ids_are_per_chunk() -> None:
    chunks = [
        ChunkReady(file_id=FILE, user_id=USER, chunk_id=uuid.uuid5(FILE, str(i)), chunk_index=i)
        for i in range(3)
    ]
    assert len({c.message_id(Subject.CHUNK_READY_FACTUAL) for c in chunks}) == 3


def test_progress_subject_names_user_and_file() -> None:
    assert progress_subject(USER, FILE) == f"progress.{USER}.{FILE}"


def test_chunk_progress_spans_50_to_95_and_never_exceeds_it() -> None:
    assert chunk_progress(0, 12) == 50
    assert chunk_progress(6, 12) == 72
    assert chunk_progress(12, 12) == 95
    assert chunk_progress(20, 12) == 95
    assert [chunk_progress(i, 7) for i in range(8)] == sorted(
        chunk_progress(i, 7) for i in range(8)
    )


def test_stage_messages_read_like_the_design() -> None:
    assert stage_message("processing", 5, 12, None) == "Compressing chunks 5/12"
    assert stage_message("extracting", 0, 0, None) == "Extracting text…"
    assert stage_message("failed", 0, 0, "not UTF-8") == "Failed: not UTF-8"


# a context.build reply as the bus has always carried it (the context service sends it, chat reads)
BUNDLE_ON_THE_WIRE = {
    "persona": "p",
    "query": "q",
    "path": "search",
    "sections": [
        {
            "name": "files",
            "priority": "F",
            "items": [
                {
                    "kind": "chunk",
                    "id": str(FILE),
                    "text": "t",
                    "tokens": 3,
                    "ref": 1,
                    "score": None,
                    "created_at": None,
                }
            ],
            "tokens": 0,
            "truncated": 0,
        }
    ],
    "references": [
        {
            "ref": 1,
            "file_id": str(USER),
            "turn_id": None,
            "fact_id": None,
            "filename": "",
            "chunk_id": None,
            "title": "",
            "char_start": None,
            "char_end": None,
            "line_start": None,
            "line_end": None,
            "snippet": "s",
        }
    ],
    "total_tokens": 3,
    "cap_tokens": 10,
    "retrieval_confidence": 0.5,
    "journal_entries": 0,
}


def test_the_context_types_are_the_domain_types_on_the_wire_unchanged() -> None:
    """The providers read these from shared.domain; the bus carries the very same classes, so a
    context.build reply and a chat's usage serialise as they always did."""
    assert (ContextBundle, Usage, Citation) == (domain.ContextBundle, domain.Usage, domain.Citation)
    item = ContextItem(kind="chunk", id=FILE, text="t", tokens=3, ref=1)
    bundle = ContextBundle(
        persona="p",
        query="q",
        path="search",
        sections=[ContextSection(name="files", priority="F", items=[item])],
        references=[Citation(ref=1, snippet="s", file_id=USER)],
        total_tokens=3,
        cap_tokens=10,
        retrieval_confidence=0.5,
        journal_entries=0,
    )
    assert json.loads(bundle.model_dump_json()) == BUNDLE_ON_THE_WIRE
    usage = Usage(model="m", prompt_tokens=1)
    assert usage.model_dump_json() == '{"model":"m","prompt_tokens":1,"completion_tokens":0}'
    assert "Usage" in ChatDone.model_json_schema()["$defs"]  # the API schema's name stays
