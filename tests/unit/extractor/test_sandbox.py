"""An extraction child holds no secret and reaches no network: a parser exploit gains nothing
the file's text did not already give it."""

import json
import logging
import os
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from services.extractor import child, sandbox
from services.extractor.child import run_in_child

ROOT = Path(__file__).resolve().parents[3]
SECRETS = {
    "ARTISAN_DATABASE_URL": "postgresql://artisan:db-password-1@db/artisan",
    "ARTISAN_SECRETS_KEY": "secrets-key-2",
    "ARTISAN_NATS_TOKEN": "nats-token-3",
    "ARTISAN_NATS_URL": "nats://user:nats-password-4@nats:4222",
    "ARTISAN_LLM_API_KEY": "sk-llm-key-5",
    "OPENAI_API_KEY": "sk-openai-key-6",
}
# the extractor's view: it starts with the secrets, and its first file starts the fork server
EXTRACTOR = """
import json, os
from services.extractor.child import run_in_child
from tests.unit.extractor.test_sandbox import what_a_child_sees
seen = run_in_child(what_a_child_sees, (os.getpid(),), timeout_seconds=30, memory_mb=1024)
print(json.dumps(seen))
"""


# targets run in the child, so they live at module level where it can import them
def what_a_child_sees(extractor_pid: int) -> str:
    return json.dumps(
        {
            "environ": dict(os.environ),
            "proc_environ": Path("/proc/self/environ").read_bytes().decode(errors="replace"),
            "server_environ": _read_or_why(f"/proc/{os.getppid()}/environ"),
            "extractor_environ": _read_or_why(f"/proc/{extractor_pid}/environ"),
        }
    )


def _read_or_why(path: str) -> str:
    try:
        return Path(path).read_bytes().decode(errors="replace")
    except OSError as refused:
        return f"refused: {refused}"


def try_to_connect(family: int, address: object) -> str:
    try:
        with socket.socket(family, socket.SOCK_STREAM) as connection:
            connection.settimeout(2)
            connection.connect(address)
    except OSError as refused:
        return f"refused: {refused}"
    return "connected"


def test_a_child_reads_none_of_the_extractors_secrets() -> None:
    env = {**os.environ, **SECRETS, "PYTHONPATH": str(ROOT)}
    extractor = subprocess.run(
        [sys.executable, "-c", EXTRACTOR], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert extractor.returncode == 0, extractor.stderr
    seen = json.loads(json.loads(extractor.stdout))
    assert seen["environ"]["PATH"] == os.environ["PATH"], "what Python needs is kept"
    assert (
        not set(seen["environ"])
        - {"PATH", "HOME", "LANG", "TZ", "TMPDIR"}
        - {name for name in seen["environ"] if name.startswith(("LC_", "PYTHON"))}
    )
    everything = json.dumps(seen)
    for name, value in SECRETS.items():
        assert value not in everything, f"{name} reached the child"
    assert seen["extractor_environ"].startswith("refused"), "the extractor's own is closed"


@pytest.fixture
def listening() -> Iterator[dict[str, object]]:
    """A TCP and a Unix socket of this process, both accepting connections."""
    tcp = socket.create_server(("127.0.0.1", 0))
    path = f"/tmp/artisan-sandbox-{os.getpid()}.sock"
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(path)
    unix.listen()
    try:
        yield {"tcp": tcp.getsockname(), "unix": path}
    finally:
        tcp.close()
        unix.close()
        os.unlink(path)


def test_a_child_cannot_open_a_socket(listening: dict[str, object]) -> None:
    for family, address in (
        (socket.AF_INET, listening["tcp"]),
        (socket.AF_UNIX, listening["unix"]),
    ):
        assert try_to_connect(family, address) == "connected", "this process can"
        in_child = run_in_child(
            try_to_connect, (family, address), timeout_seconds=30, memory_mb=1024
        )
        assert in_child.startswith("refused"), (family, in_child)


def in_a_fork(protect: Callable[[], object], family: int, address: object) -> str:
    """try_to_connect in a forked process after `protect` alone."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        protect()
        os.write(write, try_to_connect(family, address).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as answer:
        result = answer.read()
    os.waitpid(pid, 0)
    return result


@pytest.mark.skipif(sys.platform != "linux", reason="namespaces and seccomp are Linux's")
def test_each_layer_alone_keeps_a_child_off_the_network(listening: dict[str, object]) -> None:
    tcp, unix = (socket.AF_INET, listening["tcp"]), (socket.AF_UNIX, listening["unix"])
    assert in_a_fork(sandbox.own_network_namespace, *tcp).startswith("refused: [Errno 101]")
    assert (
        in_a_fork(sandbox.refuse_new_sockets, *tcp) == "refused: [Errno 1] Operation not permitted"
    )
    assert in_a_fork(sandbox.refuse_new_sockets, *unix).startswith("refused: [Errno 1]")
    guarded = in_a_fork(sandbox.guard_socket_creation, *tcp)
    assert guarded == "refused: [Errno 1] an extraction child may not open sockets"


def test_the_extractor_logs_what_protects_its_children(caplog: pytest.LogCaptureFixture) -> None:
    child._announce_sandbox.cache_clear()
    with caplog.at_level(logging.INFO, logger=child.__name__):
        child._announce_sandbox(30, 1024)
    [line] = [record.getMessage() for record in caplog.records]
    assert line.startswith("extraction children run with: environment allow-listed, ")
    if sys.platform == "linux":
        assert "own network namespace" in line and "seccomp filter refusing sockets" in line
