"""The gateway connection (URL, API key, errors) and the `artisan files` / `artisan rm` commands."""

import os
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import httpx

from shared.config import gateway_settings, infra_settings
from shared.gateway_replies import api_error

MAX_PAGE = 500  # the most records the API sends in one page of a list


class CliError(Exception):
    """A failure the user can act on; printed as `error: <message>`."""


# ── connection ────────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Connection:
    url: str
    api_key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}


def gateway_url() -> str:
    """ARTISAN_URL, else the address `artisan up` serves the gateway on."""
    if url := os.environ.get("ARTISAN_URL"):
        return url.rstrip("/")
    settings = gateway_settings()
    return f"http://{_connectable_host(settings.host)}:{settings.port}"


def _connectable_host(host: str) -> str:
    if host in ("", "0.0.0.0", "::"):  # a listen-on-all address is reached through loopback
        return "127.0.0.1"
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def api_key() -> str:
    """ARTISAN_API_KEY, else the local user's key that `artisan up` saved in the data directory."""
    if key := os.environ.get("ARTISAN_API_KEY", "").strip():
        return key
    key_file = infra_settings().data_dir / "local-user.key"
    if key_file.is_file() and (key := key_file.read_text().strip()):
        return key
    raise CliError(
        f"no API key: start Artisan with `artisan up` (it saves the local user's key in"
        f" {key_file}), or create a user with `artisan users create NAME` and set ARTISAN_API_KEY"
    )


def expect_success(response: httpx.Response) -> httpx.Response:
    if not response.is_success:
        raise CliError(api_error(response))
    return response


def run_command(command: Callable[[], int]) -> int:
    """Run a command, turning API and connection failures into one clear line on stderr."""
    try:
        return command()
    except CliError as exc:
        message = str(exc)
    except (httpx.ConnectError, httpx.ConnectTimeout):
        message = f"cannot reach Artisan at {gateway_url()} — is `artisan up` running?"
    except httpx.HTTPError as exc:
        message = f"talking to Artisan at {gateway_url()} failed: {describe_error(exc)}"
    except KeyboardInterrupt:
        return 130
    print(f"error: {message}", file=sys.stderr)
    return 1


def describe_error(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


# ── artisan files / artisan rm ────────────────────────────────────────────────────────────────


def list_files() -> int:
    return run_command(_list_files)


def _list_files() -> int:
    connection = Connection(gateway_url(), api_key())
    with httpx.Client(base_url=connection.url, headers=connection.headers, timeout=30) as http:
        items = every_file(http)
    print(files_table(items) if items else "no files yet — try `artisan upload PATH`")
    return 0


def every_file(http: httpx.Client) -> list[dict[str, Any]]:
    """Your file records, newest first, following the list's pages to the end."""
    records: list[dict[str, Any]] = []
    params = {"limit": str(MAX_PAGE)}
    while True:
        page = expect_success(http.get("/v1/files", params=params)).json()
        records += page["items"]
        if not page.get("next"):
            return records
        params["before"] = page["next"]


async def records_until_seen(
    http: httpx.AsyncClient, file_ids: Collection[str]
) -> list[dict[str, Any]]:
    """Your file records, newest first, page after page until each of `file_ids` is among them
    or the list ends (files just uploaded are the newest: mostly one page); only the pages read
    before a failed one."""
    records: list[dict[str, Any]] = []
    missing, params = set(file_ids), {}
    while True:
        response = await http.get("/v1/files", params=params)
        if not response.is_success:
            return records
        page = response.json()
        records += page["items"]
        missing -= {str(record["id"]) for record in page["items"]}
        if not missing or not page.get("next"):
            return records
        params = {"before": page["next"]}


def files_table(records: Sequence[Mapping[str, Any]]) -> str:
    headers = ["ID", "NAME", "TYPE", "STATUS", "PROGRESS", "CHUNKS"]
    rows = [
        [
            str(r["id"]),
            str(r["filename"]),
            r.get("file_type") or "-",
            str(r["status"]),
            f"{r['progress']}%",
            f"{r['processed_chunks']}/{r['total_chunks']}",
        ]
        for r in records
    ]
    return render_table(headers, rows)


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns two spaces apart."""
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]
    lines = (
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) for row in [headers, *rows]
    )
    return "\n".join(line.rstrip() for line in lines)


def remove(file_id: str) -> int:
    return run_command(lambda: _remove(file_id))


def _remove(file_id: str) -> int:
    connection = Connection(gateway_url(), api_key())
    path = f"/v1/files/{quote(file_id, safe='')}"
    with httpx.Client(base_url=connection.url, headers=connection.headers, timeout=30) as http:
        record = expect_success(http.get(path)).json()  # for its name: the ID alone says little
        expect_success(http.delete(path))
    print(f"deleted {record['filename']}")
    return 0
