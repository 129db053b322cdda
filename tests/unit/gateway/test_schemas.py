"""Records built from database rows, and readable validation errors."""

import uuid
from datetime import UTC, datetime

from services.gateway.errors import describe_validation_errors
from services.gateway.files.schemas import ChunkRecord, FileRecord

NOW = datetime(2026, 11, 22, tzinfo=UTC)


def file_row(**overrides: object) -> dict:
    row = {
        "id": uuid.UUID(int=1), "user_id": uuid.UUID(int=2), "filename": "memo.md",
        "media_type": "text/markdown", "size": 12, "content_hash": "ab" * 32, "file_type": None,
        "status": "processing", "processing_stage": "extracting", "progress": 10,
        "total_chunks": 0, "processed_chunks": 0, "error_message": None, "attempt": 1,
        "summary": None, "uploaded_at": NOW, "updated_at": NOW,
        "version": 1, "live_version": None, "reused_chunks": 0,
    }  # fmt: skip
    return row | overrides


def test_file_record_has_the_documented_fields_and_hides_internal_ones() -> None:
    record = FileRecord.from_row(file_row()).model_dump(mode="json")
    assert set(record) == {
        "id", "filename", "media_type", "size", "file_type", "status", "processing_stage",
        "progress", "progress_message", "total_chunks", "processed_chunks", "error_message",
        "uploaded_at", "updated_at", "summary", "duplicate", "version", "live_version",
        "reused_chunks",
    }  # fmt: skip
    assert record["duplicate"] is False
    assert record["progress_message"] == "Extracting text…"
    assert record["id"] == str(uuid.UUID(int=1))


def test_the_progress_message_reads_as_the_progress_events_do() -> None:
    row = file_row(processing_stage="processing", progress=72, total_chunks=12, processed_chunks=5)
    assert FileRecord.from_row(row).progress_message == "Compressing chunks 5/12"
    failed = file_row(status="failed", processing_stage="failed", error_message="not UTF-8")
    assert FileRecord.from_row(failed).progress_message == "Failed: not UTF-8"


def test_a_matched_upload_is_marked_duplicate() -> None:
    assert FileRecord.from_row(file_row(), duplicate=True).duplicate is True


def chunk_row(**overrides: object) -> dict:
    row = {
        "id": uuid.UUID(int=3), "file_id": uuid.UUID(int=1), "user_id": uuid.UUID(int=2),
        "chunk_index": 0, "chunk_type": "strategic", "title": "Decision", "char_start": 0,
        "char_end": 40, "line_start": 1, "line_end": 3, "text": "We chose Germany." * 2,
        "summary": "The team chose Germany.",
        "chunk_essence": "Germany first", "decision_arc_summary": "x" * 60, "salience_score": 8,
        "embedded": True,
    }  # fmt: skip
    return row | overrides


def test_strategic_chunks_carry_their_artisan_cut() -> None:
    chunk = ChunkRecord.from_row(chunk_row()).model_dump()
    assert chunk["salience_score"] == 8 and chunk["chunk_essence"] == "Germany first"
    assert "embedded" not in chunk and "user_id" not in chunk


def test_factual_chunks_have_null_cut_fields() -> None:
    chunk = ChunkRecord.from_row(chunk_row(chunk_type="factual", salience_score=3))
    assert (chunk.chunk_essence, chunk.decision_arc_summary, chunk.salience_score) == (
        None,
        None,
        None,
    )


def test_validation_errors_read_as_one_sentence() -> None:
    errors = [{"loc": ("query", "limit"), "msg": "Input should be a valid integer"}]
    message = describe_validation_errors(errors)
    assert message.startswith("Invalid request: query limit: Input should be a valid integer")
    assert "/docs" in message
