"""Which files `artisan upload PATH...` and `artisan sync DIR` send: folders walked, hidden files
left out, and never a link out of the folder walked (a link to ~/.aws/credentials is not sent).
A link within the folder is followed once: each real folder is walked at most once, so links
cannot loop, and a file reached both directly and through a link is sent once, by its own path."""

import os
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

LINK_OUT = "link out of the folder"
BROKEN_LINK = "link to nothing"


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    unsupported: list[Path] = field(default_factory=list)
    missing: list[Path] = field(default_factory=list)
    skipped: dict[str, list[Path]] = field(default_factory=dict)  # why → the paths left out

    def skip(self, path: Path, reason: str) -> None:
        self.skipped.setdefault(reason, []).append(path)


def discover(paths: Iterable[Path], extensions: Collection[str]) -> Discovery:
    """The files to upload under the given files and folders, each once, in a stable order.
    A file named on its own is sent as named (even a link: you chose it)."""
    found, seen = Discovery(), set[Path]()
    for path in paths:
        if not path.exists():
            found.missing.append(path)
            continue
        for candidate in _files_inside(path, found) if path.is_dir() else [path]:
            if candidate.resolve() in seen:
                continue
            seen.add(candidate.resolve())
            supported = candidate.suffix.lower() in extensions
            (found.files if supported else found.unsupported).append(candidate)
    return found


def why_not_inside(folder: Path, path: Path) -> str | None:
    """Why `path` may not be sent as part of `folder` (a link out of it, or to nothing), or None."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):  # a dangling link, or a loop of links
        return BROKEN_LINK
    return None if target.is_relative_to(folder.resolve()) else LINK_OUT


def _files_inside(folder: Path, found: Discovery) -> Iterator[Path]:
    """Visible files under folder, recursively: its own first, then what links inside it reach
    (so a file reached both ways is sent by its own path)."""
    walked, links = set[Path](), list[Path]()
    yield from _walk(folder, walked, links)
    followed = 0
    while followed < len(links):  # following a link may find more
        link, followed = links[followed], followed + 1
        if reason := why_not_inside(folder, link):
            found.skip(link, reason)
        elif link.is_dir():
            yield from _walk(link, walked, links)
        elif link.is_file():
            yield link


def _walk(top: Path, walked: set[Path], links: list[Path]) -> Iterator[Path]:
    """Files under top that are not links (os.walk follows none), each real folder once; the
    links it meets are added to `links`."""
    for parent, dirs, names in os.walk(top, followlinks=False):
        here = Path(parent)
        if here.resolve() in walked:  # a folder met again through a link: links cannot loop
            dirs[:] = []
            continue
        walked.add(here.resolve())
        visible = sorted(d for d in dirs if not d.startswith("."))
        dirs[:] = [d for d in visible if not (here / d).is_symlink()]  # pruned in place
        files = sorted(here / n for n in names if not n.startswith("."))
        links += sorted(p for p in [*(here / d for d in visible), *files] if p.is_symlink())
        yield from (path for path in files if not path.is_symlink() and path.is_file())
