"""The launcher restarts a service that crashed, but not one that refused to start (exit 78):
its configuration must change first, and restarting it every 30 s forever helps nobody."""

import time
from pathlib import Path

import pytest

from shared.launcher import supervisor as supervision
from shared.launcher.supervisor import Supervisor


@pytest.fixture
def fake_services(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    (tmp_path / "refuser.py").write_text("print('wrong settings: fix X'); raise SystemExit(78)\n")
    (tmp_path / "crasher.py").write_text("raise SystemExit(1)\n")
    monkeypatch.setitem(supervision.SERVICES, "refuser", "refuser")
    monkeypatch.setitem(supervision.SERVICES, "crasher", "crasher")
    return {"PYTHONPATH": str(tmp_path)}


def _wait_exited(supervisor: Supervisor) -> None:
    deadline = time.monotonic() + 30
    while any(p.process.poll() is None for p in supervisor.processes):
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_refusal_is_not_restarted_and_keeps_its_reason(
    fake_services: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(supervision, "RESTART_DELAY_SECONDS", 0.0)
    supervisor = Supervisor(fake_services, log_dir=tmp_path / "logs")
    supervisor.start("refuser")
    supervisor.start("crasher")
    _wait_exited(supervisor)
    restarted = supervisor.restart_dead()
    assert restarted == ["crasher-1"]  # a crash is restarted…
    assert [p.label for p in supervisor.refused] == ["refuser-1"]  # …a refusal is not
    assert "fix X" in supervisor.log_tail(supervisor.refused[0])
    assert [p.name for p in supervisor.processes] == ["crasher"]
    supervisor.stop()
