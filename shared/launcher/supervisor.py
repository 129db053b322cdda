"""Starts each service as its own OS process, restarts ones that die, stops them all cleanly."""

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from shared.errors import EXIT_REFUSED
from shared.launcher.metrics_ports import MetricsPorts

logger = logging.getLogger(__name__)

# service name → module whose main() runs it; `artisan run NAME` uses the same table
SERVICES = {
    "gateway": "services.gateway.main",
    "extractor": "services.extractor.main",
    "chunker": "services.chunker.main",
    "compressor": "services.compressor.main",
    "embedder": "services.embedder.main",
    "chat": "services.chat.main",
    "context": "services.context.main",
}
RESTART_DELAY_SECONDS = 1.0
MAX_RESTART_DELAY_SECONDS = 30.0
QUICK_EXIT_SECONDS = 10.0


@dataclass
class ServiceProcess:
    name: str
    replica: int
    process: subprocess.Popen[bytes]
    started_at: float = field(default_factory=time.monotonic)
    quick_exits: int = 0  # consecutive exits soon after start: the restart delay doubles

    def restart_delay(self) -> float:
        return min(MAX_RESTART_DELAY_SECONDS, RESTART_DELAY_SECONDS * 2**self.quick_exits)

    @property
    def label(self) -> str:
        return f"{self.name}-{self.replica}"


class Supervisor:
    """Owns the service processes of one Artisan instance."""

    def __init__(
        self,
        env: dict[str, str],
        log_dir: Path | None = None,
        metrics_ports: MetricsPorts | None = None,
        service_env: Mapping[str, dict[str, str]] | None = None,
    ) -> None:
        self.env = {**os.environ, **env}
        self.service_env = service_env or {}  # what only a service's processes are given
        self.log_dir = log_dir
        self.metrics_ports = metrics_ports  # None: the processes read ARTISAN_METRICS_PORT
        self.processes: list[ServiceProcess] = []
        self.refused: list[ServiceProcess] = []  # refused to start: restarting would not help

    def start(self, name: str, replicas: int = 1) -> None:
        for _ in range(replicas):
            self._spawn(name, self._next_replica(name))

    def _next_replica(self, name: str) -> int:
        return 1 + max((p.replica for p in self.processes if p.name == name), default=0)

    def _spawn(self, name: str, replica: int) -> ServiceProcess:
        output = self._log_file(name, replica)
        process = subprocess.Popen(
            [sys.executable, "-m", SERVICES[name]],
            env=self._env_of(name, replica),
            stdout=output,
            stderr=subprocess.STDOUT if output is not None else None,
            start_new_session=True,  # Ctrl-C reaches the supervisor, which stops children in order
        )
        if output is not None:
            output.close()
        service = ServiceProcess(name=name, replica=replica, process=process)
        self.processes.append(service)
        return service

    def _env_of(self, name: str, replica: int) -> dict[str, str]:
        """Every process's environment, with its own metrics port (the gateway serves its
        metrics on its HTTP port)."""
        env = {**self.env, **self.service_env.get(name, {})}
        if self.metrics_ports is None or name == "gateway":
            return env
        port = self.metrics_ports.port_for(f"{name}-{replica}")
        return {**env, "ARTISAN_METRICS_PORT": str(port)}

    def _log_file(self, name: str, replica: int) -> BinaryIO | None:
        if self.log_dir is None:
            return None
        self.log_dir.mkdir(parents=True, exist_ok=True)
        return open(self.log_dir / f"{name}-{replica}.log", "ab")

    def running(self, name: str) -> list[ServiceProcess]:
        return [p for p in self.processes if p.name == name and p.process.poll() is None]

    def kill(self, name: str) -> None:
        """SIGKILL every replica of a service (for crash tests): no cleanup, no acks."""
        for service in self.running(name):
            service.process.kill()
            service.process.wait()
        self.processes = [p for p in self.processes if p.name != name]

    def restart_dead(self) -> list[str]:
        """Replace processes that exited, backing off from ones that keep exiting at once; one
        that refused to start (its configuration) moves to `refused` and stays down."""
        restarted = []
        for service in list(self.processes):
            if service.process.poll() is None:
                continue
            if service.process.returncode == EXIT_REFUSED:
                logger.error("%s refused to start:\n%s", service.label, self.log_tail(service))
                self.processes.remove(service)
                self.refused.append(service)
                continue
            if time.monotonic() - service.started_at < service.restart_delay():
                continue
            logger.warning(
                "%s exited with %s; restarting", service.label, service.process.returncode
            )
            self.processes.remove(service)
            replacement = self._spawn(service.name, service.replica)
            replacement.quick_exits = (
                service.quick_exits + 1 if self._exited_quickly(service) else 0
            )
            restarted.append(service.label)
        return restarted

    @staticmethod
    def _exited_quickly(service: ServiceProcess) -> bool:
        return time.monotonic() - service.started_at < QUICK_EXIT_SECONDS + service.restart_delay()

    def log_tail(self, service: ServiceProcess, lines: int = 5) -> str:
        """The last lines a service wrote (what to show a user when it will not start)."""
        if self.log_dir is None:
            return ""
        path = self.log_dir / f"{service.label}.log"
        if not path.exists():
            return ""
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM all, wait, then SIGKILL stragglers; the gateway goes first so clients see it."""
        ordered = sorted(self.processes, key=lambda p: p.name != "gateway")
        for service in ordered:
            if service.process.poll() is None:
                service.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for service in ordered:
            remaining = max(0.1, deadline - time.monotonic())
            try:
                service.process.wait(timeout=remaining)
            except subprocess.TimeoutExpired:
                service.process.kill()
                service.process.wait()
        self.processes = []
