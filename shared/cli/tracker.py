"""The state of each file of one upload, moved forward by progress events and file records."""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from shared.progress import row_message

FINAL_STATUSES = frozenset({"ready", "failed", "rejected"})
STAGE_ORDER = (
    "uploading",
    "uploaded",
    "queued",
    "extracting",
    "classifying",
    "chunking",
    "processing",
)


@dataclass(eq=False)  # identity-hashed: the views keep per-file bookkeeping keyed by state
class FileState:
    path: Path
    file_id: str | None = None
    status: str = "uploading"  # uploading | processing | ready | failed | rejected
    stage: str = "uploading"
    progress: int = 0
    processed_chunks: int = 0
    message: str = "Uploading…"

    @property
    def name(self) -> str:
        return str(self.path)

    @property
    def done(self) -> bool:
        return self.status in FINAL_STATUSES

    def apply(self, event: Mapping[str, Any]) -> bool:
        """Take a progress event that moves the file forward; stale or repeated ones are ignored."""
        stage, progress = event.get("stage", self.stage), int(event.get("progress", 0))
        processed, status = int(event.get("processed_chunks", 0)), event.get("status", self.status)
        forward = position(progress, stage, processed) > self.position
        if self.done or (status == "processing" and not forward):
            return False
        self.status, self.stage, self.progress = status, stage, progress
        self.processed_chunks = processed
        self.message = event.get("message") or self.message
        return True

    @property
    def position(self) -> tuple[int, int, int]:
        return position(self.progress, self.stage, self.processed_chunks)

    def reject(self, reason: str) -> None:
        self.status = self.stage = "rejected"
        self.message = f"rejected: {reason}"


def position(progress: int, stage: str, processed_chunks: int) -> tuple[int, int, int]:
    """Order of a file's states: workers' events can arrive out of order and a poll can be stale;
    a stage breaks a tie in progress (uploaded and extracting both stand at 10%)."""
    rank = STAGE_ORDER.index(stage) if stage in STAGE_ORDER else len(STAGE_ORDER)
    return (progress, rank, processed_chunks)


def event_from_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """A file record in the shape of an SSE progress event."""
    stage, status = record["processing_stage"], record["status"]
    message = record.get("progress_message") or row_message(record)
    if record.get("duplicate"):
        message = "already uploaded" if status == "ready" else f"already uploaded; {message}"
    return {
        "file_id": str(record["id"]),
        "status": status,
        "stage": stage,
        "progress": record["progress"],
        "processed_chunks": record["processed_chunks"],
        "message": message,
    }


class View(Protocol):
    def changed(self, state: FileState) -> None: ...
    def note(self, line: str) -> None: ...  # a line about the whole upload (the connection)
    def tick(self) -> None: ...
    def close(self) -> None: ...


class Tracker:
    """Routes progress events and file records to the state of the file they are about."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.by_id: dict[str, FileState] = {}
        # events for ids we don't know yet: ours whose POST response is still on its way, or others
        self.unclaimed: dict[str, Mapping[str, Any]] = {}

    def on_event(self, event: Mapping[str, Any]) -> None:
        file_id = str(event.get("file_id", ""))
        if file_id in self.by_id:
            self._apply(self.by_id[file_id], event)
        else:
            self.unclaimed[file_id] = event

    def on_uploaded(self, state: FileState, record: Mapping[str, Any]) -> None:
        state.file_id = str(record["id"])
        self.by_id[state.file_id] = state
        self._apply(state, event_from_record(record))
        if early := self.unclaimed.pop(state.file_id, None):
            self._apply(state, early)

    def on_record(self, record: Mapping[str, Any]) -> None:
        """A file record read from the API (the poll): applies only to files of this upload."""
        if state := self.by_id.get(str(record.get("id"))):
            self._apply(state, event_from_record(record))

    def on_rejected(self, state: FileState, reason: str) -> None:
        state.reject(reason)
        self.view.changed(state)

    def _apply(self, state: FileState, event: Mapping[str, Any]) -> None:
        if state.apply(event):
            self.view.changed(state)
