"""The README's commands that upload, list, follow, update and delete files."""

import itertools
import json
import re
import signal
import time
from pathlib import Path

from tests.e2e.readme.expect import assert_has_shown_keys, sse_events
from tests.e2e.readme.shown import Shown
from tests.e2e.readme.tour import Tour, lines_until
from tests.e2e.readme.workspace import SYNCED_NOTE

SUMMARY = re.compile(r"^(\d+) ready, (\d+) failed$", re.MULTILINE)
LISTED_ROW = re.compile(r"^[0-9a-f-]{36}\s+\S+.*$", re.MULTILINE)


def upload_folder(tour: Tour, shown: Shown) -> None:
    """Each file of the folder, nested ones too, is uploaded and followed to ready."""
    uploaded = tour.running().shell(shown.command, timeout=600)
    local = sorted(p.name for p in (tour.checkout / "my-notes").rglob("*") if p.is_file())
    assert SUMMARY.findall(uploaded.stdout) == [(str(len(local)), "0")], uploaded.stdout
    printed = [line.split() for line in uploaded.stdout.splitlines()]
    for line in shown.output.splitlines():  # the final state of each file the README shows
        if line.endswith("100%  Ready"):
            assert line.split() in printed, (line, uploaded.stdout)
    assert sorted(f["filename"] for f in tour.files() if f["status"] == "ready") == local


def list_files(tour: Tour, shown: Shown) -> None:
    """The table the README shows: its header, and each file's type, status and chunks."""
    listed = tour.running().shell(shown.command).stdout
    header, *rows = shown.output.splitlines()
    assert listed.splitlines()[0].split() == header.split(), listed
    for row in rows:
        _, name, *state = row.split()
        found = [line.split() for line in LISTED_ROW.findall(listed)]
        actual = [cells[2:] for cells in found if cells[1] == name]
        assert actual == [state], f"the README shows {row!r}; printed:\n{listed}"


def file_chunks(tour: Tour, shown: Shown) -> None:
    """Chunks in document order that cover the text, each cut at a speaker turn, ranges into
    the file's content, strategic ones with their Artisan Cut."""
    chunks = json.loads(tour.running().shell(shown.command).stdout)["items"]
    assert_has_shown_keys(shown.output, {"items": chunks})
    file_id = re.search(r"files/([0-9a-f-]{36})/chunks", tour.as_run_here(shown.command))
    assert file_id
    with tour.api() as api:
        content = api.get(f"/v1/files/{file_id.group(1)}/content").text
    assert [c["chunk_index"] for c in chunks] == list(range(len(chunks)))
    assert chunks[0]["char_start"] == 0 and chunks[-1]["char_end"] == len(content)
    for chunk, after in itertools.pairwise(chunks):
        assert chunk["char_end"] == after["char_start"]
    for chunk in chunks:
        assert content[chunk["char_start"] : chunk["char_end"]] == chunk["text"]
        assert re.match(r"(BOSS|EXPERT \d): ", chunk["text"]), chunk["text"][:80]
        assert chunk["chunk_type"] != "strategic" or chunk["chunk_essence"]


def file_events(tour: Tour, shown: Shown) -> None:
    """A finished file's stream: its final state, as the README shows it, then the end."""
    printed = tour.running().shell(shown.command, timeout=60).stdout
    events = sse_events(printed)
    assert [name for name, _ in events] == ["progress"], printed
    [(_, last)] = events
    assert last["status"] == "ready" and last["progress"] == 100, last
    assert_has_shown_keys(shown.output, last)
    assert re.search(r"^id: [0-9a-f-]{36}:\d{4}:100:\d{6}:\d+:ready$", printed, re.MULTILINE)


def refused_upload(tour: Tour, shown: Shown) -> None:
    """The refusal the README shows, word for word, and no file stored."""
    before = tour.running().files()
    refused = tour.shell(shown.command)
    assert json.loads(refused.stdout) == json.loads(shown.output), refused.stdout
    assert tour.files() == before


def update_by_put(tour: Tour, shown: Shown) -> None:
    """A new version of a file that is ready: 202, version 2, version 1 searched until it is
    ready, then the same file id at version 2."""
    plan = tour.checkout / "plan.md"
    with tour.running().api() as api:
        first = api.post("/v1/files", files={"files": ("plan.md", plan.read_bytes())}).json()
    tour.wait_until_settled()
    _edit(plan, "Sales gets a one-page summary of the tiers.")
    record = json.loads(tour.shell(shown.command).stdout)
    assert record["id"] == first["items"][0]["id"], record
    assert (record["version"], record["live_version"]) == (2, 1), record
    [settled] = [f for f in tour.wait_until_settled() if f["id"] == record["id"]]
    assert (settled["status"], settled["version"]) == ("ready", 2), settled


def update_by_upload(tour: Tour, shown: Shown) -> None:
    """Uploading a file whose name you have updates that file: one plan.md, a version more."""
    before = _the_only(tour, "plan.md")
    _edit(tour.checkout / "plan.md", "Finance reviews the tier prices in May.")
    updated = tour.shell(shown.command)
    assert SUMMARY.findall(updated.stdout) == [("1", "0")], updated.stdout
    after = _the_only(tour, "plan.md")
    assert after["id"] == before["id"] and after["version"] == before["version"] + 1


def sync_folder(tour: Tour, shown: Shown) -> None:
    """The folder is uploaded, then a file saved again is updated in place; Ctrl-C stops."""
    note = tour.home / "notes" / "standup.md"
    syncing = tour.running().background(shown.command)
    try:
        lines_until(syncing, "Watching")  # uploaded; a save from now on is seen
        first = _wait_for(tour, "standup.md", version=1)
        _edit(note, "Design review moved to Thursday.")
        second = _wait_for(tour, "standup.md", version=2)
        assert second["id"] == first["id"]
    finally:
        syncing.send_signal(signal.SIGINT)
        printed, _ = syncing.communicate(timeout=60)
    assert syncing.returncode == 0, printed
    assert "Stopped syncing" in printed, printed
    assert note.read_text().startswith(SYNCED_NOTE)


def upload_as_new(tour: Tour, shown: Shown) -> None:
    """`--new`: a second file of the same name, beside the first (same bytes would be the
    same file: an upload of content you have is answered with that file)."""
    _edit(tour.checkout / "plan.md", "A draft for the second launch.")
    tour.running().shell("artisan upload plan.md --new")
    plans = [f for f in tour.wait_until_settled() if f["filename"] == "plan.md"]
    assert len(plans) == 2 and {f["status"] for f in plans} == {"ready"}, plans


def sync_template(tour: Tour, shown: Shown) -> None:
    """`artisan sync DIR` on a path that is no folder says what it wants."""
    missing = tour.running().shell("artisan sync ./no-such-folder", check=False)
    assert missing.returncode == 1 and "not a folder" in missing.stdout + missing.stderr


def files_template(tour: Tour, shown: Shown) -> None:
    listed = tour.running().shell("artisan files").stdout
    assert all(f["id"] in listed for f in tour.files()), listed


def remove_file(tour: Tour, shown: Shown) -> None:
    """`artisan rm ID` deletes that file, and only that one."""
    newest = next(f for f in tour.running().files() if f["filename"] == "plan.md")
    removed = tour.shell(f"artisan rm {newest['id']}")
    assert removed.stdout.strip() == "deleted plan.md", removed.stdout
    left = [f["id"] for f in tour.files()]
    assert newest["id"] not in left and len(left) >= 1


def _edit(path: Path, line: str) -> None:
    path.write_text(path.read_text() + f"\n{line}\n")


def _the_only(tour: Tour, name: str) -> dict:
    [record] = [f for f in tour.wait_until_settled() if f["filename"] == name]
    return record


def _wait_for(tour: Tour, name: str, *, version: int, timeout: float = 120) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for record in tour.files():
            live = (record["status"], record["live_version"]) == ("ready", version)
            if record["filename"] == name and live:
                return record
        time.sleep(0.5)
    raise AssertionError(f"{name} not ready at version {version}: {tour.files()}")
