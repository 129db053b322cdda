"""Pipeline stages and their progress ranges (DESIGN.md; the whole-file summary runs at 95),
and the event built from a files row."""

from collections.abc import Mapping
from typing import Any

from shared.contracts import ProgressEvent

# progress reached when the named stage *starts*, i.e. the work before it is complete
STAGE_START = {
    "queued": 5,
    "extracting": 10,
    "classifying": 20,
    "chunking": 30,
    "processing": 50,
    "summarising": 95,
    "ready": 100,
}
CHUNKS_START, CHUNKS_END = 50, 95

_STAGE_TEXT = {
    "uploaded": "Uploaded",
    "queued": "Queued",
    "extracting": "Extracting text…",
    "classifying": "Analyzing document…",
    "chunking": "Finding sections…",
    "summarising": "Summarising…",
    "ready": "Ready",
}


def chunk_progress(processed: int, total: int) -> int:
    """50–95 in proportion to the chunks stored so far."""
    if total <= 0:
        return CHUNKS_START
    return CHUNKS_START + (CHUNKS_END - CHUNKS_START) * min(processed, total) // total


def stage_message(
    stage: str, processed: int, total: int, error: str | None, reused: int = 0
) -> str:
    if stage == "failed":
        return f"Failed: {error}" if error else "Failed"
    if stage == "processing":
        kept = f" (reused {reused} of {total} unchanged)" if reused else ""
        return f"Compressing chunks {processed}/{total}{kept}"
    if stage == "ready" and error:
        return f"Ready; {error}"  # a failed update: the previous version is still searched
    return _STAGE_TEXT.get(stage, stage)


def row_message(row: Mapping[str, Any]) -> str:
    """The stage text of a files row (or of a file record, which has the same fields)."""
    return stage_message(
        row["processing_stage"],
        row["processed_chunks"],
        row["total_chunks"],
        row["error_message"],
        row.get("reused_chunks", 0),
    )


def progress_event(row: Mapping[str, Any]) -> ProgressEvent:
    """The SSE payload for a files row (the database row is the truth clients receive)."""
    return ProgressEvent(
        file_id=row["id"],
        attempt=row["attempt"],
        status=row["status"],
        stage=row["processing_stage"],
        progress=row["progress"],
        processed_chunks=row["processed_chunks"],
        total_chunks=row["total_chunks"],
        reused_chunks=row.get("reused_chunks", 0),
        version=row.get("version", 1),
        message=row_message(row),
        updated_at=row["updated_at"],
    )
