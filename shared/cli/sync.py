"""`artisan sync DIR`: upload a folder, then keep watching it; a file that changes is updated in
place (same id, unchanged parts reused), a new file is uploaded. Files are known by their path
in the folder (sync_index.py); a link out of the folder is never followed. Deleting a local file
deletes nothing on the server. Stops on Ctrl-C or SIGTERM, or when Artisan stays unreachable
past the bound (link.py), saying what became of the changes it was sending."""

import asyncio
import signal
import sys
from collections.abc import Coroutine, Iterable
from contextlib import suppress
from pathlib import Path
from typing import Any

import httpx
from watchfiles import Change, DefaultFilter, awatch

from shared.cli.client import Connection, api_key, gateway_url, run_command
from shared.cli.discovery import Discovery, discover, why_not_inside
from shared.cli.link import ConnectionLost
from shared.cli.progress_view import LineView
from shared.cli.sync_index import SyncIndex
from shared.cli.tracker import FileState
from shared.cli.upload import lost_lines, skipped_lines, summary_lines, upload_and_follow
from shared.formats import SUPPORTED_EXTENSIONS

# a save often writes a file in several steps; changes are gathered for this long (ms)
DEBOUNCE_MS = 800


class SupportedFiles(DefaultFilter):
    """Changes to files Artisan reads; editors' swap files, .git and hidden files and folders
    left out, as the first upload leaves them out."""

    def __init__(self, folder: Path) -> None:
        super().__init__()
        self.folders = (folder, folder.resolve())  # the watcher may report either

    def __call__(self, change: Change, path: str) -> bool:
        candidate = Path(path)
        inside = next(
            (candidate.relative_to(f) for f in self.folders if candidate.is_relative_to(f)),
            candidate,
        )
        return (
            change != Change.deleted
            and not any(part.startswith(".") for part in inside.parts)
            and candidate.suffix.lower() in SUPPORTED_EXTENSIONS
            and super().__call__(change, path)
        )


def sync(directory: Path) -> int:
    if not directory.is_dir():
        print(f"not a folder: {directory} (give the folder to keep in sync)")
        return 1
    return run_command(lambda: _sync(directory))


def _sync(directory: Path) -> int:
    connection = Connection(gateway_url(), api_key())
    print(f"Syncing {directory} to {connection.url} (stop with Ctrl-C)", flush=True)
    with suppress(KeyboardInterrupt):  # Ctrl-C is how a sync ends
        asyncio.run(_sync_over_http(connection, directory))
    print("Stopped syncing; every change sent so far keeps processing on the server.")
    return 0


async def _sync_over_http(connection: Connection, directory: Path) -> None:
    # Ctrl-C and SIGTERM set `stop`, which ends the watch at once (watchfiles' thread checks it)
    # and the upload in progress: a cancellation arriving while the watch's thread runs was
    # lost (anyio shields that wait), and the sync went on after Ctrl-C
    stop = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.set)
    index = SyncIndex.load(connection, directory)
    async with httpx.AsyncClient(base_url=connection.url, headers=connection.headers) as http:
        found = discover([directory], SUPPORTED_EXTENSIONS)
        if not await _unless_stopped(send(http, found, index), stop):
            return
        print(f"Watching {directory} for changes", flush=True)
        changes = awatch(
            directory, watch_filter=SupportedFiles(directory), debounce=DEBOUNCE_MS, stop_event=stop
        )
        async for batch in changes:
            found = changed_files(directory, sorted({Path(p) for _, p in batch}))
            if not await _unless_stopped(send(http, found, index), stop):
                return
            print(f"Watching {directory} for changes", flush=True)


def changed_files(directory: Path, paths: Iterable[Path]) -> Discovery:
    """The changed files to send: a link out of the folder is skipped, as on the first upload.
    A file gone again before it is read is sent all the same, and shown as not sent."""
    found = Discovery()
    for path in paths:
        gone = not path.exists() and not path.is_symlink()
        if not gone and (reason := why_not_inside(directory, path)):
            found.skip(path, reason)
        else:
            found.files.append(path)
    return found


async def _unless_stopped(work: Coroutine[Any, Any, None], stop: asyncio.Event) -> bool:
    """Run `work` to its end unless `stop` is set first, which cancels it; whether it ended."""
    working, stopping = asyncio.create_task(work), asyncio.create_task(stop.wait())
    await asyncio.wait({working, stopping}, return_when=asyncio.FIRST_COMPLETED)
    stopping.cancel()
    if not working.done():
        working.cancel()
        with suppress(asyncio.CancelledError):
            await working
        return False
    working.result()  # its error, if it failed
    return True


async def send(http: httpx.AsyncClient, found: Discovery, index: SyncIndex) -> None:
    """Upload (or update in place) each file and follow it to ready or failed; say what was
    skipped. The files sent are remembered by their path even if Artisan is lost meanwhile."""
    states = [FileState(path) for path in found.files]
    if states:
        view = LineView(states, sys.stdout)
        try:
            await upload_and_follow(http, states, view, match=index.match)
        except ConnectionLost:
            again = f"run `artisan sync {index.folder}` again"
            print("\n".join(lost_lines(states, again)), flush=True)
            raise  # run_command says why, and the sync ends
        finally:
            index.remember(states)
            view.close()
        print("\n".join(summary_lines(states)).strip(), flush=True)
    skipped = skipped_lines(found, SUPPORTED_EXTENSIONS, each_unsupported=False)
    if skipped:
        print("\n".join(skipped), flush=True)
