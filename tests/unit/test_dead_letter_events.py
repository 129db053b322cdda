"""Dead letters name a file or a turn: the stored event decides which one fails, through the same
Work interface run_step uses."""

import uuid

import pytest
from pydantic import ValidationError

from shared.contracts import ChunkReady, FileUploaded, TurnCompleted, TurnCompressed
from shared.pipeline import FileWork, TurnWork, work_from_message, work_of
from shared.usage import WorkContext


def test_a_turn_event_is_read_as_a_turn() -> None:
    turn = TurnCompleted(turn_id=uuid.uuid4(), user_id=uuid.uuid4(), attempt=2)
    work = work_from_message(turn.model_dump(mode="json"))
    assert isinstance(work, TurnWork) and work.event.turn_id == turn.turn_id
    assert (work.kind, work.describe()) == ("turn", f"turn {turn.turn_id}")


def test_a_file_or_chunk_event_is_read_as_a_file() -> None:
    data = {"file_id": str(uuid.uuid4()), "user_id": str(uuid.uuid4()), "chunk_index": 3}
    work = work_from_message(data)
    assert isinstance(work, FileWork) and str(work.event.file_id) == data["file_id"]
    assert (work.kind, work.describe()) == ("file", f"file {data['file_id']}")


@pytest.mark.parametrize("data", [{}, {"turn_id": "x", "user_id": "y"}, {"chunk_id": "z"}, [1]])
def test_anything_else_is_refused(data: object) -> None:
    with pytest.raises(ValidationError):
        work_from_message(data)


def test_every_pipeline_event_names_its_work_and_what_its_model_calls_serve() -> None:
    user_id, file_id, turn_id = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    chunk = ChunkReady(file_id=file_id, user_id=user_id, chunk_id=uuid.uuid4(), chunk_index=0)
    for event in (FileUploaded(file_id=file_id, user_id=user_id), chunk):
        assert work_of(event).context() == WorkContext(user_id=user_id, file_id=file_id)
    for event in (
        TurnCompleted(turn_id=turn_id, user_id=user_id),
        TurnCompressed(turn_id=turn_id, user_id=user_id),
    ):
        assert work_of(event).context() == WorkContext(user_id=user_id, turn_id=turn_id)
