"""Progress events as SSE: their ids, and the per-file filter that keeps a stream moving forward.

Event ids are `<file_id>:<attempt 0000>:<progress 000-100>:<processed chunks 000000>:<finished 0|1>:
<status>`, e.g. `0b6c…:0001:072:000005:0:processing`. They increase (as strings too), so a client
can compare them; the server uses `Last-Event-ID` only to know a client is
reconnecting (it always sends the current state from the database first) and to answer 204 to a
client that already has a finished file's final event.
"""

from uuid import UUID

from sse_starlette import ServerSentEvent

from shared.contracts import ProgressEvent

SSE_EVENT_NAME = "progress"
TERMINAL_STATUSES = frozenset({"ready", "failed"})


def event_id(event: ProgressEvent) -> str:
    finished = int(is_terminal(event))
    position = f"{event.attempt:04d}:{event.progress:03d}:{event.processed_chunks:06d}:{finished}"
    return f"{event.file_id}:{position}:{event.status}"


def to_sse(event: ProgressEvent) -> ServerSentEvent:
    return ServerSentEvent(data=event.model_dump_json(), event=SSE_EVENT_NAME, id=event_id(event))


def is_terminal(event: ProgressEvent) -> bool:
    return event.status in TERMINAL_STATUSES


def progress_key(event: ProgressEvent) -> tuple[int, int, int, int]:
    """Order of states: a retry's attempt starts over; a finished state beats a running one."""
    return (event.attempt, event.progress, event.processed_chunks, int(is_terminal(event)))


class ProgressFilter:
    """Per file, pass only events that move forward: workers' events can arrive out of order."""

    def __init__(self) -> None:
        self._last: dict[UUID, ProgressEvent] = {}

    def accept(self, event: ProgressEvent) -> bool:
        previous = self._last.get(event.file_id)
        if previous is None or progress_key(event) > progress_key(previous):
            self._last[event.file_id] = event
            return True
        return False

    def forget(self, file_id: UUID) -> None:
        self._last.pop(file_id, None)

    def unfinished(self) -> set[UUID]:
        """Files whose last state sent was still processing."""
        return {file_id for file_id, last in self._last.items() if not is_terminal(last)}
