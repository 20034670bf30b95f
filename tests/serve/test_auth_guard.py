"""The failed-authentication guard on a virtual clock: when an address is refused and for how
long, what a report says and how often, and that memory stays bounded whatever the addresses."""

from __future__ import annotations

from dataclasses import dataclass

from toolpool.serve._guard import AuthGuard, GuardSettings, address_of


@dataclass
class Clock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


def _guard(clock: Clock, **settings: float) -> AuthGuard:
    values = {"limit": 3, "window_s": 10.0, "refusal_s": 60.0} | settings
    return AuthGuard(GuardSettings(**values), clock=clock)  # type: ignore[arg-type]


def test_the_limit_th_failure_within_the_window_refuses_the_address_until_the_refusal_ends() -> None:
    clock = Clock()
    guard = _guard(clock)
    for _ in range(2):
        guard.failed("10.0.0.1", "mcp")
    assert guard.refusal("10.0.0.1") is None
    guard.failed("10.0.0.1", "admin")
    assert guard.refusal("10.0.0.1") == 60.0
    assert guard.refusal("10.0.0.2") is None  # another address is unaffected
    clock.now += 59.5
    assert guard.refusal("10.0.0.1") == 0.5  # refused requests do not extend it
    clock.now += 0.5
    assert guard.refusal("10.0.0.1") is None


def test_failures_spread_wider_than_the_window_never_refuse() -> None:
    clock = Clock()
    guard = _guard(clock)
    for _ in range(20):
        guard.failed("10.0.0.1", "ui")
        assert guard.refusal("10.0.0.1") is None
        clock.now += 6.0  # two per window at most


def test_a_zero_refusal_counts_and_reports_but_never_refuses() -> None:
    clock = Clock()
    guard = _guard(clock, refusal_s=0.0)
    for _ in range(10):
        guard.failed("10.0.0.1", "mcp")
    assert guard.refusal("10.0.0.1") is None
    [report] = guard.due()
    assert (report.failures, report.refused_for_s) == (10, 0.0)


def test_an_address_is_reported_at_once_then_at_most_once_per_window_and_everything_on_request() -> None:
    clock = Clock()
    guard = _guard(clock)
    guard.failed("10.0.0.1", "mcp")
    [first] = guard.due()
    assert (first.address, first.failures, first.planes) == ("10.0.0.1", 1, ("mcp",))
    for plane in ("admin", "ui", "mcp"):
        guard.failed("10.0.0.1", plane)  # type: ignore[arg-type]
    guard.refusal("10.0.0.1")
    assert guard.due() == []  # within the window of the last report
    clock.now += 10.0
    [second] = guard.due()
    assert (second.failures, second.planes, second.refused_requests) == (3, ("admin", "mcp", "ui"), 1)
    assert 0 < second.refused_for_s <= 60.0
    assert "failed authentication from 10.0.0.1: 3 (admin, mcp, ui)" in second.line()
    guard.failed("10.0.0.1", "mcp")
    assert [report.failures for report in guard.due(everything=True)] == [1]


def test_memory_is_bounded_however_many_addresses_fail_and_quiet_ones_are_forgotten() -> None:
    clock = Clock()
    guard = AuthGuard(GuardSettings(limit=3, window_s=10.0, refusal_s=60.0, max_addresses=100), clock=clock)
    for n in range(10_000):
        guard.failed(f"10.{n // 65536}.{n // 256 % 256}.{n % 256}", "mcp")
    assert len(guard) == 100
    guard.due(everything=True)
    clock.now += 11.0
    guard.due()
    assert len(guard) == 0


def test_an_ipv6_client_is_counted_by_its_64_and_ipv4_by_its_address() -> None:
    def scope(host: str) -> dict[str, object]:
        return {"type": "http", "client": (host, 5000)}

    assert (
        address_of(scope("2001:db8:1:2:aaaa::1"))
        == address_of(scope("2001:db8:1:2:bbbb::9"))
        == "2001:db8:1:2::/64"
    )
    assert address_of(scope("2001:db8:1:3::1")) != address_of(scope("2001:db8:1:2::1"))
    assert address_of(scope("127.0.0.2")) == "127.0.0.2" != address_of(scope("127.0.0.1"))
    assert address_of(scope("::1")) == "::1"
    assert address_of({"type": "http"}) == "unknown"
