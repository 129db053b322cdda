"""Pipeline stages and their progress ranges (DESIGN.md; the whole-file summary runs at 95),
and the event built from a files row."""

from collections import OrderedDict
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
FINAL_STAGES = frozenset({"ready", "failed"})

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


class ProgressThrottle:
    """Which progress events of a process to send: every stage change at once, a file's chunk
    counts at most every `interval` seconds (a 500-chunk file would otherwise send 500 events,
    each a publish and a fan-out, for a bar that moves a pixel). The row stays the truth: a
    skipped count is in the next event and in what a reconnecting client reads."""

    def __init__(self, interval: float = 0.25, remembered: int = 10_000) -> None:
        self.interval = interval
        self.remembered = remembered
        self._last: OrderedDict[Any, tuple[tuple[Any, str], float]] = OrderedDict()

    def should_send(self, row: Mapping[str, Any], now: float) -> bool:
        file_id, state = row["id"], (row.get("attempt"), row["processing_stage"])
        last = self._last.get(file_id)
        # only a count within the same attempt and stage waits: a retry's failure or a file's
        # end is news however soon it follows
        if (
            last is not None
            and last[0] == state
            and state[1] not in FINAL_STAGES
            and now - last[1] < self.interval
        ):
            return False
        self._last[file_id] = (state, now)
        self._last.move_to_end(file_id)
        if len(self._last) > self.remembered:
            self._last.popitem(last=False)
        return True
