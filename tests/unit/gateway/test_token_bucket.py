"""Token buckets: a burst of `per_minute`, then the steady rate; exact waits; keys apart; idle
buckets forgotten."""

from services.gateway.fair_use.token_bucket import TokenBuckets


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_of_per_minute_then_one_token_every_60_over_per_minute_seconds() -> None:
    clock = Clock()
    buckets = TokenBuckets(6, clock=clock)  # a token every 10 s
    assert [buckets.take("u") for _ in range(6)] == [0.0] * 6
    assert buckets.take("u") == 10.0  # empty: the next token is 10 s away, and none is taken
    clock.now += 4
    assert buckets.take("u") == 6.0
    clock.now += 6
    assert buckets.take("u") == 0.0
    assert buckets.take("u") == 10.0


def test_refill_stops_at_the_burst_size() -> None:
    clock = Clock()
    buckets = TokenBuckets(3, clock=clock)
    buckets.take("u")
    clock.now += 3600
    assert [buckets.take("u") for _ in range(4)] == [0.0, 0.0, 0.0, 20.0]


def test_wait_takes_nothing() -> None:
    buckets = TokenBuckets(1, clock=Clock())
    assert buckets.wait("u") == 0.0
    assert buckets.wait("u") == 0.0
    assert buckets.take("u") == 0.0
    assert buckets.wait("u") == 60.0


def test_keys_have_their_own_buckets() -> None:
    buckets = TokenBuckets(1, clock=Clock())
    assert buckets.take("a") == 0.0
    assert buckets.take("a") > 0
    assert buckets.take("b") == 0.0


def test_zero_means_no_limit() -> None:
    buckets = TokenBuckets(0, clock=Clock())
    assert all(buckets.take("u") == 0.0 for _ in range(10_000))
    assert len(buckets) == 0


def test_refilled_buckets_are_forgotten_so_many_keys_do_not_grow_the_table() -> None:
    clock = Clock()
    buckets = TokenBuckets(60, clock=clock)
    for key in range(5000):  # one request each, a hundred keys a second
        buckets.take(key)
        clock.now += 0.01
    # a bucket that gave one token of 60 is full again a second later: only recent keys stay
    assert len(buckets) <= 1024
    for _ in range(60):
        buckets.take("busy")
    assert buckets.wait("busy") == 1.0  # an emptied bucket is kept and still counts
