"""Subjects become labels without the ids some of them carry (users, files, requests)."""

import uuid

from hypothesis import given
from hypothesis import strategies as st

from shared.contracts import (
    Request,
    Subject,
    chat_stop_subject,
    chat_stream_subject,
    progress_subject,
)
from shared.metrics.bus import subject_label


def test_the_fixed_subjects_are_their_own_labels() -> None:
    for subject in [*Subject, *Request]:
        assert subject_label(subject.value) == subject.value


@given(st.uuids(), st.uuids())
def test_a_subject_with_ids_is_labelled_by_its_prefix(
    user_id: uuid.UUID, file_id: uuid.UUID
) -> None:
    labels = {
        subject_label(progress_subject(user_id, file_id)),
        subject_label(chat_stream_subject(file_id)),
        subject_label(chat_stop_subject(file_id)),
    }
    assert labels == {"progress.*", "chat.stream.*", "chat.stop.*"}


@given(st.from_regex(r"[A-Za-z0-9_$]{1,12}(\.[A-Za-z0-9_-]{1,40}){1,4}", fullmatch=True))
def test_any_other_subject_keeps_only_its_first_token(subject: str) -> None:
    label = subject_label(subject)
    if label not in {s.value for s in [*Subject, *Request]}:
        assert label == subject.split(".", 1)[0] + ".*"
