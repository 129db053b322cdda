"""The launcher restarts a dead embedded server at once, backs off from one that keeps dying or
will not start, and leaves a live one alone; the embedded NATS's token has a shape nats-server
reads as a word."""

import pytest
from pydantic import SecretStr

from shared.launcher import healing
from shared.launcher.embedded import NatsTokenError, check_embedded_token, new_nats_token
from shared.launcher.healing import InfraSupervisor


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class FakeServer:
    def __init__(self, name: str, *, fails: int = 0) -> None:
        self.name, self.alive, self.fails, self.restarts = name, True, fails, 0

    def is_alive(self) -> bool:
        return self.alive

    def restart(self) -> None:
        self.restarts += 1
        if self.fails:
            self.fails -= 1
            raise RuntimeError("the old postmaster has not exited yet")
        self.alive = True

    def stop(self) -> None:
        self.alive = False


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(healing, "time", clock)
    return clock


def test_only_the_dead_server_is_restarted_and_at_once(clock: Clock) -> None:
    nats, postgres = FakeServer("nats-server"), FakeServer("postgres")
    infra = InfraSupervisor([nats, postgres])
    clock.now += 3600
    nats.alive = False
    assert infra.restart_dead() == ["nats-server"]
    assert (nats.restarts, postgres.restarts) == (1, 0)
    assert infra.restart_dead() == []


def test_a_server_that_keeps_dying_is_restarted_less_and_less_often(clock: Clock) -> None:
    server = FakeServer("nats-server")
    infra = InfraSupervisor([server])
    clock.now += 3600
    waits = []
    for _ in range(4):
        server.alive = False
        died_at = clock.now
        while not infra.restart_dead():
            clock.now += 0.25
        waits.append(clock.now - died_at)
    assert waits == [0.0, 1.0, 2.0, 4.0]  # counted from its last start, as for services


def test_a_failed_restart_is_tried_again_later_without_raising(clock: Clock) -> None:
    server = FakeServer("postgres", fails=2)
    infra = InfraSupervisor([server])
    clock.now += 3600
    server.alive = False
    assert infra.restart_dead() == []  # the first attempt failed: logged, not raised
    attempts_at = []
    while not server.alive:
        clock.now += 0.25
        before = server.restarts
        infra.restart_dead()
        if server.restarts > before:
            attempts_at.append(clock.now - 3600 - 1000)
    assert attempts_at == [1.0, 3.0]  # one second after the failure, then two more


@pytest.mark.parametrize("token", ["", "yes", "1234567890123456789", "-abcdefghijklmnop", "a b"])
def test_a_token_nats_server_would_misread_is_refused(token: str) -> None:
    with pytest.raises(NatsTokenError, match="ARTISAN_NATS_TOKEN"):
        check_embedded_token(SecretStr(token))


def test_new_tokens_are_random_words() -> None:
    first, second = new_nats_token(), new_nats_token()
    check_embedded_token(first)
    assert first != second and len(first.get_secret_value()) > 64
