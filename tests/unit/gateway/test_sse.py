"""SSE event ids and the per-file filter that keeps every stream moving forward."""

import json
import uuid

from services.gateway.dispatch.sse import ProgressFilter, event_id, to_sse
from shared.contracts import ProgressEvent

FILE = uuid.UUID(int=7)
OTHER = uuid.UUID(int=8)


def state(
    progress: int,
    processed: int = 0,
    status: str = "processing",
    stage: str = "processing",
    file_id: uuid.UUID = FILE,
    total: int = 10,
    attempt: int = 1,
) -> ProgressEvent:
    return ProgressEvent(
        file_id=file_id,
        attempt=attempt,
        status=status,
        stage=stage,
        progress=progress,
        processed_chunks=processed,
        total_chunks=total,
        message="",
    )


def test_event_id_sorts_like_progress_within_an_attempt() -> None:
    states = [
        state(10, stage="extracting"),
        state(54, 1),
        state(54, 1, "failed", "failed"),
        state(99, 9),
        state(100, 10, "ready", "ready"),
    ]
    ids = [event_id(e) for e in states]
    assert ids == sorted(ids)
    assert ids[1] == f"{FILE}:0001:054:000001:0:processing"
    assert ids[-1] == f"{FILE}:0001:100:000010:1:ready"
    assert event_id(state(10, stage="extracting", attempt=2)) > ids[-1]


def test_sse_message_carries_the_progress_event_as_json() -> None:
    message = to_sse(state(54, 1)).encode().decode()
    assert "event: progress" in message
    assert f"id: {FILE}:0001:054:000001:0:processing" in message
    data = json.loads(message.split("data: ", 1)[1].split("\r\n", 1)[0])
    assert set(data) >= {
        "file_id",
        "status",
        "stage",
        "progress",
        "processed_chunks",
        "total_chunks",
        "message",
    }
    assert data["progress"] == 54 and data["file_id"] == str(FILE)


def test_events_that_move_back_or_repeat_are_dropped() -> None:
    progress = ProgressFilter()
    arrivals = [state(50), state(59, 2), state(54, 1), state(59, 2), state(63, 3)]
    passed = [e.progress for e in arrivals if progress.accept(e)]
    assert passed == [50, 59, 63]


def test_a_final_state_beats_a_running_one_at_equal_progress() -> None:
    progress = ProgressFilter()
    assert progress.accept(state(30, stage="chunking"))
    assert progress.accept(state(30, status="failed", stage="failed"))
    assert not progress.accept(state(30, stage="chunking"))


def test_files_are_filtered_independently() -> None:
    progress = ProgressFilter()
    assert progress.accept(state(80))
    assert progress.accept(state(20, file_id=OTHER))


def test_a_retry_starts_over_and_drops_the_old_attempts_late_events() -> None:
    progress = ProgressFilter()
    assert progress.accept(state(40, status="failed", stage="failed"))
    assert progress.accept(state(10, stage="extracting", attempt=2))
    assert not progress.accept(state(50, attempt=1))
    assert progress.accept(state(20, stage="classifying", attempt=2))


def test_within_an_attempt_nothing_starts_over() -> None:
    progress = ProgressFilter()
    assert progress.accept(state(40))
    assert not progress.accept(state(10, stage="extracting"))
    assert progress.accept(state(100, 10, "ready", "ready"))
    assert not progress.accept(state(10, stage="extracting"))


def test_unfinished_lists_files_last_seen_processing() -> None:
    progress = ProgressFilter()
    progress.accept(state(40))
    progress.accept(state(100, 10, "ready", "ready", file_id=OTHER))
    assert progress.unfinished() == {FILE}
    progress.forget(FILE)
    assert progress.unfinished() == set()
