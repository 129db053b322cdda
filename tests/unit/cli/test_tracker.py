"""Routing progress events and file records to the files of one upload."""

from pathlib import Path
from typing import Any

from shared.cli.tracker import FileState, Tracker, event_from_record
from shared.cli.upload import interrupted_message, summary_lines


class RecordingView:
    def __init__(self) -> None:
        self.changes: list[tuple[str, int]] = []

    def changed(self, state: FileState) -> None:
        self.changes.append((state.stage, state.progress))

    def tick(self) -> None:
        pass

    def close(self) -> None:
        pass


def record(file_id: str = "f1", **overrides: Any) -> dict[str, Any]:
    return {
        "id": file_id,
        "filename": "a.md",
        "status": "processing",
        "processing_stage": "uploaded",
        "progress": 10,
        "processed_chunks": 0,
        "total_chunks": 0,
        "error_message": None,
        "duplicate": False,
        **overrides,
    }


def event(stage: str, progress: int, status: str = "processing", **extra: Any) -> dict[str, Any]:
    return {"file_id": "f1", "status": status, "stage": stage, "progress": progress, **extra}


def test_a_stale_event_never_moves_progress_back() -> None:
    state = FileState(Path("a.md"))
    assert state.apply(event("processing", 60))
    assert not state.apply(event("chunking", 40))
    assert (state.stage, state.progress) == ("processing", 60)


def test_at_equal_progress_the_later_stage_wins() -> None:
    state = FileState(Path("a.md"))
    assert state.apply(event("extracting", 10))
    assert not state.apply(event("uploaded", 10))  # e.g. a poll answered before the event
    assert not state.apply(event("extracting", 10))  # a repeat changes nothing
    assert state.stage == "extracting"


def test_a_stored_chunk_moves_the_file_forward_even_when_the_percentage_does_not() -> None:
    state = FileState(Path("a.md"))
    state.apply(event("processing", 60, processed_chunks=40))
    assert state.apply(event("processing", 60, processed_chunks=41, message="41/90"))
    assert state.message == "41/90"


def test_a_finished_file_ignores_later_events() -> None:
    state = FileState(Path("a.md"))
    state.apply(event("failed", 20, status="failed", message="Failed: binary file"))
    assert state.done
    assert not state.apply(event("ready", 100, status="ready"))
    assert state.message == "Failed: binary file"


def test_a_failure_is_taken_even_below_the_current_progress() -> None:
    state = FileState(Path("a.md"))
    state.apply(event("processing", 60))
    assert state.apply(event("failed", 0, status="failed"))


def test_events_that_arrive_before_the_upload_response_are_kept_for_it() -> None:
    view = RecordingView()
    tracker, state = Tracker(view), FileState(Path("a.md"))
    tracker.on_event(event("chunking", 30, message="Finding sections…"))
    tracker.on_uploaded(state, record())
    assert (state.stage, state.progress, state.message) == ("chunking", 30, "Finding sections…")
    assert view.changes == [("uploaded", 10), ("chunking", 30)]


def test_events_of_other_files_do_not_touch_this_upload() -> None:
    tracker, state = Tracker(RecordingView()), FileState(Path("a.md"))
    tracker.on_uploaded(state, record())
    tracker.on_event({**event("ready", 100, status="ready"), "file_id": "someone-else"})
    assert state.status == "processing"


def test_a_polled_record_updates_its_file() -> None:
    tracker, state = Tracker(RecordingView()), FileState(Path("a.md"))
    tracker.on_uploaded(state, record())
    tracker.on_record(record(status="ready", processing_stage="ready", progress=100))
    assert state.done and state.message == "Ready"


def test_a_ready_duplicate_is_done_at_once_as_already_uploaded() -> None:
    state = FileState(Path("a.md"))
    Tracker(RecordingView()).on_uploaded(
        state, record(duplicate=True, status="ready", processing_stage="ready", progress=100)
    )
    assert state.done and state.message == "already uploaded"


def test_record_messages_come_from_the_shared_stage_texts() -> None:
    processing = record(processing_stage="processing", processed_chunks=5, total_chunks=12)
    assert event_from_record(processing)["message"] == "Compressing chunks 5/12"
    failed = record(status="failed", processing_stage="failed", error_message="not text")
    assert event_from_record(failed)["message"] == "Failed: not text"


def test_a_rejected_upload_is_final_and_says_why() -> None:
    view = RecordingView()
    state = FileState(Path("big.md"))
    Tracker(view).on_rejected(state, "larger than the 10 MB limit")
    assert state.done and state.message == "rejected: larger than the 10 MB limit"
    assert view.changes == [("rejected", 0)]


def test_the_summary_counts_rejections_as_failures_with_their_reasons() -> None:
    ready = FileState(Path("a.md"), status="ready")
    failed = FileState(Path("b.pdf"), status="failed", message="Failed: not text")
    rejected = FileState(Path("c.md"))
    rejected.reject("empty file")
    assert summary_lines([ready, failed, rejected]) == [
        "\n1 ready, 2 failed",
        "  ✗ b.pdf — Failed: not text",
        "  ✗ c.md — rejected: empty file",
    ]


def test_an_interruption_says_the_server_keeps_working() -> None:
    sent, unsent = FileState(Path("a.md"), file_id="f1", status="processing"), FileState(Path("b"))
    message = interrupted_message([sent, unsent])
    assert "(1 of 2) keep processing on the server" in message
    assert "1 file not sent" in message
