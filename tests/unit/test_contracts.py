"""Message contracts: de-duplication ids and progress arithmetic."""

import uuid

from shared.contracts import ChunkReady, FileUploaded, Subject, progress_subject
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
