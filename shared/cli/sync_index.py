"""Which of your files each synced path is. `artisan sync` keys a file by its path relative to the
folder, so `a/notes.md` and `b/notes.md` are two files; the server keeps base names only, so the
pairs (relative path → file id) are kept in the data directory: one JSON file per folder, in a
directory per server and API key (named by a digest: the key itself is never written)."""

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from shared.cli.client import Connection
from shared.cli.tracker import FileState
from shared.config import infra_settings

INDEX_DIR = "sync"


@dataclass
class SyncIndex:
    path: Path  # where the index is kept
    folder: Path
    ids: dict[str, str] = field(default_factory=dict)  # relative POSIX path → file id
    # ids other folders synced to the same account hold: never adopted by name here
    elsewhere: set[str] = field(default_factory=set)

    @classmethod
    def load(cls, connection: Connection, folder: Path) -> "SyncIndex":
        account = _digest(connection.url, connection.api_key)
        directory = infra_settings().data_dir / INDEX_DIR / account
        path = directory / f"{_digest(str(folder.resolve()))}.json"
        others = (other for other in directory.glob("*.json") if other != path)
        elsewhere = {file_id for other in others for file_id in _read(other).values()}
        return cls(path, folder, _read(path), elsewhere)

    def key(self, path: Path) -> str:
        """The path relative to the folder, in POSIX form: what the file is known by."""
        try:
            relative = path.relative_to(self.folder)
        except ValueError:  # the watcher may report the folder's real path (it is a link)
            relative = path.resolve().relative_to(self.folder.resolve())
        return relative.as_posix()

    def match(
        self, states: Sequence[FileState], records: Sequence[Mapping[str, Any]]
    ) -> dict[Path, str]:
        """The file of yours each local file updates in place (see docs/cli.md, "sync"):
        - a path synced before updates its file, unless that file is gone or another path holds
          it too (two files once identical): then it is sent as new;
        - a path not synced before (a new file, or one the name-keyed sync of earlier versions
          sent) takes your newest file of its name, if no other path in the folder has that
          name and no synced path holds that file; else it is sent as new."""
        yours = {str(record["id"]) for record in records}
        by_name: dict[str, str] = {}
        for record in records:  # newest first
            by_name.setdefault(record["filename"], str(record["id"]))
        holders = Counter(self.ids.values())
        keys = {state.path: self.key(state.path) for state in states}
        names = Counter(PurePosixPath(key).name for key in {*self.ids, *keys.values()})
        held = {*self.ids.values(), *self.elsewhere}
        targets: dict[Path, str] = {}
        for path, key in keys.items():
            known = self.ids.get(key)
            if known in yours:
                if holders[known] == 1:
                    targets[path] = known
                continue
            adopted = by_name.get(path.name)
            if adopted and names[path.name] == 1 and adopted not in held:
                targets[path] = adopted
        return targets

    def remember(self, states: Iterable[FileState]) -> None:
        """Keep the file each path was sent as (a rejected file is none), on disk at once."""
        for state in states:
            if state.file_id is not None:
                self.ids[self.key(state.path)] = state.file_id
        self.path.parent.mkdir(parents=True, exist_ok=True)
        written = self.path.with_suffix(".tmp")
        body = {"folder": str(self.folder), "files": dict(sorted(self.ids.items()))}
        written.write_text(json.dumps(body, indent=1))
        os.replace(written, self.path)  # whole or not at all: a crash never leaves half an index


def _read(path: Path) -> dict[str, str]:
    try:
        files = json.loads(path.read_text()).get("files", {})
    except (OSError, ValueError, AttributeError):
        return {}  # none yet, or unreadable: files are matched as on a first sync
    return {str(key): str(value) for key, value in files.items()} if isinstance(files, dict) else {}


def _digest(*parts: str) -> str:
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:24]
