"""Which files `artisan upload PATH...` sends: folders walked, hidden files left out."""

import os
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    unsupported: list[Path] = field(default_factory=list)
    missing: list[Path] = field(default_factory=list)


def discover(paths: Iterable[Path], extensions: Collection[str]) -> Discovery:
    """The files to upload under the given files and folders, each once, in a stable order."""
    found, seen = Discovery(), set()
    for path in paths:
        if not path.exists():
            found.missing.append(path)
            continue
        for candidate in _visible_files(path) if path.is_dir() else [path]:
            if candidate.resolve() in seen:
                continue
            seen.add(candidate.resolve())
            supported = candidate.suffix.lower() in extensions
            (found.files if supported else found.unsupported).append(candidate)
    return found


def _visible_files(folder: Path) -> Iterator[Path]:
    """Files under folder, recursively, leaving out hidden ones (.git, .DS_Store, …)."""
    for parent, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))  # pruned in place: not walked
        for name in sorted(names):
            if not name.startswith(".") and (Path(parent) / name).is_file():
                yield Path(parent) / name
