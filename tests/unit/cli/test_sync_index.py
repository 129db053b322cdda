"""`artisan sync` knows a file by its path in the folder (issue 29, finding 9: `a/notes.md` and
`b/notes.md` overwrote each other, matched by their base name)."""

from pathlib import Path
from typing import Any

from shared.cli.client import Connection
from shared.cli.sync_index import SyncIndex
from shared.cli.tracker import FileState
from shared.config import infra_settings

SERVER = Connection("http://artisan", "key-1")


def yours(*files: tuple[str, str]) -> list[dict[str, Any]]:
    """File records, newest first, as GET /v1/files lists them: (id, filename)."""
    return [{"id": file_id, "filename": name} for file_id, name in files]


def states(folder: Path, *keys: str) -> list[FileState]:
    return [FileState(folder / key) for key in keys]


def sent(index: SyncIndex, folder: Path, ids: dict[str, str]) -> None:
    """The upload's outcome: each path got this file id."""
    done = states(folder, *ids)
    for state in done:
        state.file_id = ids[index.key(state.path)]
    index.remember(done)


def targets(index: SyncIndex, folder: Path, records: list[dict[str, Any]], *keys: str) -> dict:
    matched = index.match(states(folder, *keys), records)
    return {index.key(path): file_id for path, file_id in matched.items()}


def test_two_files_of_one_name_in_two_folders_are_two_files(tmp_path: Path) -> None:
    index = SyncIndex.load(SERVER, tmp_path)
    assert targets(index, tmp_path, [], "a/notes.md", "b/notes.md") == {}  # both sent as new
    sent(index, tmp_path, {"a/notes.md": "A", "b/notes.md": "B"})
    records = yours(("B", "notes.md"), ("A", "notes.md"))
    assert targets(index, tmp_path, records, "a/notes.md", "b/notes.md") == {
        "a/notes.md": "A",
        "b/notes.md": "B",
    }


def test_the_paths_survive_a_restart_and_are_kept_per_server_and_key(tmp_path: Path) -> None:
    sent(SyncIndex.load(SERVER, tmp_path), tmp_path, {"a/notes.md": "A"})
    assert SyncIndex.load(SERVER, tmp_path).ids == {"a/notes.md": "A"}
    assert SyncIndex.load(Connection("http://artisan", "key-2"), tmp_path).ids == {}
    assert SyncIndex.load(Connection("http://other", "key-1"), tmp_path).ids == {}
    index_files = list(infra_settings().data_dir.rglob("*.json"))
    assert len(index_files) == 1 and "key-1" not in index_files[0].read_text()


def test_a_file_the_name_keyed_sync_sent_is_taken_over_by_its_path(tmp_path: Path) -> None:
    """Upgrading: the old sync left `plan.md` (by name); its one local file updates it."""
    index = SyncIndex.load(SERVER, tmp_path)
    records = yours(("OLD", "plan.md"))
    assert targets(index, tmp_path, records, "docs/plan.md") == {"docs/plan.md": "OLD"}


def test_a_name_two_local_files_share_takes_over_nothing(tmp_path: Path) -> None:
    """The old sync kept one `notes.md` for both: whichever was saved last. Neither takes it
    over; both are sent as new, and the one with the same content is recognised by the server."""
    index = SyncIndex.load(SERVER, tmp_path)
    records = yours(("OLD", "notes.md"))
    assert targets(index, tmp_path, records, "a/notes.md", "b/notes.md") == {}
    sent(index, tmp_path, {"a/notes.md": "A"})
    assert targets(index, tmp_path, records, "b/notes.md") == {}  # a/notes.md still has the name


def test_a_file_another_path_or_folder_holds_is_never_taken_by_name(tmp_path: Path) -> None:
    other = tmp_path / "other"
    sent(SyncIndex.load(SERVER, other), other, {"notes.md": "X"})
    index = SyncIndex.load(SERVER, tmp_path / "mine")
    records = yours(("X", "notes.md"))
    assert targets(index, tmp_path / "mine", records, "notes.md") == {}


def test_a_file_gone_from_the_server_or_held_twice_is_sent_as_new(tmp_path: Path) -> None:
    index = SyncIndex.load(SERVER, tmp_path)
    # identical content: the server answered both uploads with one file
    sent(index, tmp_path, {"a.md": "SAME", "b.md": "SAME", "c.md": "DELETED"})
    records = yours(("SAME", "a.md"))
    assert targets(index, tmp_path, records, "a.md", "b.md", "c.md") == {}
