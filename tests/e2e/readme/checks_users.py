"""`artisan users …` as the README's command table lists them, on the embedded database: with
`artisan up` running, and with it stopped (the command starts the database and stops it again)."""

import re

import httpx

from shared.launcher.embedded import postgres_running
from tests.e2e.readme.shown import Shown
from tests.e2e.readme.tour import Tour

CREATED = re.compile(
    r"^created (user|admin) '(\w+)'; API key \(shown once, keep it safe\):\n(ak_\S+)$"
)
NOTE_STARTED = "Artisan is not running: started its database for this command …"
NOTE_STOPPED = "… and stopped it again."


def create(tour: Tour, shown: Shown) -> None:
    """A key that works at once, with the system up; and with it stopped, a key that works
    once it is up again."""
    alice = _created(tour.running(), "artisan users create alice", "user")
    tour.env["ALICE_KEY"] = alice
    assert _uploads(tour, alice, "alice.md").status_code == 202
    assert _created(tour, "artisan users create root --admin", "admin")

    tour.down()
    stopped = tour.shell("artisan users create bob")
    assert stopped.stderr.splitlines() == [NOTE_STARTED, NOTE_STOPPED], stopped.stderr
    assert not postgres_running(tour.data_dir / "pgdata")  # stopped again, as it said
    bob = _key_of(stopped.stdout, "user")
    listed = tour.shell("artisan users list")
    assert {"alice", "bob"} <= _rows(listed.stdout).keys() and NOTE_STOPPED in listed.stderr
    tour.up()
    assert _uploads(tour, bob, "bob.md").status_code == 202


def _created(tour: Tour, command: str, role: str) -> str:
    created = tour.shell(command)
    assert created.stderr == "", created.stderr  # the system is up: nothing to start
    return _key_of(created.stdout, role)


def _key_of(printed: str, role: str) -> str:
    match = CREATED.match(printed.strip())
    assert match and match.group(1) == role, printed
    return match.group(3)


def _uploads(tour: Tour, key: str, name: str) -> httpx.Response:
    with tour.api(key) as api:
        return api.post("/v1/files", files={"files": (name, f"# {name}\n\nA note.\n".encode())})


def list_users(tour: Tour, shown: Shown) -> None:
    """Every user with its key's state, whether an admin, and its files; no key printed."""
    listed = tour.running().shell("artisan users list").stdout
    rows = _rows(listed)
    assert {"local", "alice", "root", "bob"} <= set(rows), listed
    assert "active" in rows["alice"] and rows["alice"].split()[-1] == "1"  # alice.md
    assert "yes" in rows["root"] and "ak_" not in listed


def _rows(listed: str) -> dict[str, str]:
    return {line.split()[0]: line for line in listed.splitlines()[1:]}


def admin(tour: Tour, shown: Shown) -> None:
    """An admin may read the model settings; --off takes that back."""
    key = tour.env["ALICE_KEY"]
    made = tour.running().shell("artisan users admin alice")
    assert made.stdout.strip() == "'alice' is now an admin of this Artisan", made.stdout
    assert _settings_status(tour, key) == 200
    tour.shell("artisan users admin alice --off")
    assert _settings_status(tour, key) == 403


def _settings_status(tour: Tour, key: str) -> int:
    with tour.api(key) as api:
        return api.get("/v1/settings/models").status_code


def revoke(tour: Tour, shown: Shown) -> None:
    key = tour.env["ALICE_KEY"]
    revoked = tour.running().shell("artisan users revoke alice")
    assert "revoked the API key of 'alice'" in revoked.stdout, revoked.stdout
    with tour.api(key) as api:
        assert api.get("/v1/files").status_code == 401
    assert "revoked" in tour.shell("artisan users list").stdout


def rotate(tour: Tour, shown: Shown) -> None:
    """A new key that works; alice's file is still hers."""
    rotated = tour.running().shell("artisan users rotate alice").stdout
    key = rotated.strip().splitlines()[-1]
    assert rotated.startswith("new API key of 'alice'") and key.startswith("ak_"), rotated
    with tour.api(key) as api:
        assert [f["filename"] for f in api.get("/v1/files").json()["items"]] == ["alice.md"]
    unknown = tour.shell("artisan users rotate nobody", check=False)
    assert unknown.returncode == 1 and "no user named 'nobody'" in unknown.stderr
