"""Failed authentication, per client address: counted, reported in aggregate, and an address
that keeps failing refused for a while.

Every plane tells the guard of its failures: the bearer gate (an unknown MCP token, another
token's ``Mcp-Session-Id``), the admin API (a wrong admin token) and the UI's login form. A
request with no ``Authorization`` header at all is refused but not counted: it guesses
nothing, and MCP clients probe without one (OAuth discovery) before they are configured. A window opens at an address's first failure and lasts ``window_s``; the ``limit``-th
failure inside it refuses every request from that address, on every plane, for ``refusal_s``
seconds (429 with ``Retry-After``). Other addresses are unaffected. Refused requests do not
extend the refusal: a client that fixed its token gets in once it ends.

An address is an IPv4 address, or an IPv6 address's /64 (one host usually holds a whole /64).
At most ``max_addresses`` are tracked; past that the least recently seen is forgotten, so an
attacker with many addresses costs bounded memory (and gains nothing it did not have).

Reports: ``due()`` hands out, at most once per ``window_s`` per address, what was counted since
that address's last report; ``report_failures`` logs one line and appends one audit event for
each. The planes never hand the guard a token, so no report can carry one.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Literal

import anyio
import anyio.to_thread
from starlette.types import Scope

from toolpool.errors import UsageError

__all__ = [
    "AUTH_FAILED",
    "AuthGuard",
    "FailureReport",
    "GuardSettings",
    "Plane",
    "address_of",
    "report_failures",
]

AUTH_FAILED = "auth.failed"  # the audit action of a report
Plane = Literal["mcp", "mcp_session", "admin", "ui", "metrics"]
# How often reports are looked for: the first failure of a quiet address is logged this soon.
REPORT_TICK_S = 1.0
# Writing one report to the store; a store that does not answer loses that report, not the loop.
_AUDIT_S = 10.0
_ACTOR = "serve"
logger = logging.getLogger("toolpool.serve")


@dataclass(frozen=True, slots=True)
class GuardSettings:
    """``limit`` failures within ``window_s`` refuse an address for ``refusal_s`` (0: never)."""

    limit: int = 20
    window_s: float = 60.0
    refusal_s: float = 300.0
    max_addresses: int = 10_000


@dataclass(frozen=True, slots=True)
class FailureReport:
    """What one address did since its last report; never what it sent."""

    address: str
    failures: int
    planes: tuple[str, ...]
    refused_requests: int
    refused_for_s: float  # how much longer the address is refused; 0 when it is not

    def detail(self, window_s: float) -> dict[str, object]:
        """The audit event's detail."""
        return {
            "failures": self.failures,
            "planes": list(self.planes),
            "refused_requests": self.refused_requests,
            "refused_for_s": math.ceil(self.refused_for_s),
            "window_s": window_s,
        }

    def line(self) -> str:
        """The log line."""
        text = f"failed authentication from {self.address}: {self.failures} ({', '.join(self.planes) or '-'})"
        if self.refused_requests:
            text += f"; {self.refused_requests} requests refused"
        if self.refused_for_s > 0:
            text += f"; refused for {math.ceil(self.refused_for_s)} s more"
        return text


@dataclass(slots=True)
class _Address:
    seen: float
    opened: float = 0.0  # when the current window opened
    in_window: int = 0
    until: float = 0.0  # refused until then
    reported: float = -math.inf
    failures: int = 0  # since the last report
    refused: int = 0  # since the last report
    planes: set[str] = field(default_factory=set)


class AuthGuard:
    """The failures of one service, by client address (see the module)."""

    def __init__(self, settings: GuardSettings | None = None, *, clock: Callable[[], float] = time.monotonic):
        self.settings = settings if settings is not None else GuardSettings()
        self._clock = clock
        self._addresses: OrderedDict[str, _Address] = OrderedDict()

    def __len__(self) -> int:
        return len(self._addresses)

    def refusal(self, address: str) -> float | None:
        """Seconds ``address`` is still refused for (the request is counted as refused), or None."""
        found = self._addresses.get(address)
        now = self._clock()
        if found is None or found.until <= now:
            return None
        found.refused += 1
        self._touch(address, found, now)
        return found.until - now

    def failed(self, address: str, plane: Plane) -> None:
        """One failed authentication from ``address`` on ``plane``."""
        now = self._clock()
        found = self._addresses.get(address)
        if found is None:
            found = self._addresses[address] = _Address(seen=now)
            while len(self._addresses) > self.settings.max_addresses:
                self._addresses.popitem(last=False)
        self._touch(address, found, now)
        found.failures += 1
        found.planes.add(plane)
        if found.in_window == 0 or now - found.opened > self.settings.window_s:
            found.opened, found.in_window = now, 0
        found.in_window += 1
        if found.in_window >= self.settings.limit and self.settings.refusal_s > 0 and found.until <= now:
            found.until = now + self.settings.refusal_s
            found.in_window = 0

    def due(self, *, everything: bool = False) -> list[FailureReport]:
        """The reports due now (with ``everything``, every pending one); forgets quiet addresses."""
        now = self._clock()
        reports = []
        for address, found in list(self._addresses.items()):
            if found.failures or found.refused:
                if everything or now - found.reported >= self.settings.window_s:
                    reports.append(self._report(address, found, now))
            elif found.until <= now and now - found.seen > self.settings.window_s:
                del self._addresses[address]
        return reports

    def _report(self, address: str, found: _Address, now: float) -> FailureReport:
        report = FailureReport(
            address, found.failures, tuple(sorted(found.planes)), found.refused, max(found.until - now, 0.0)
        )
        found.failures, found.refused, found.reported = 0, 0, now
        found.planes = set()
        return report

    def _touch(self, address: str, found: _Address, now: float) -> None:
        found.seen = now
        self._addresses.move_to_end(address)


def address_of(scope: Scope) -> str:
    """The client address a request is counted under: IPv4 as is, IPv6 by its /64."""
    client = scope.get("client")
    host = str(client[0]) if client else ""
    try:
        parsed = ipaddress.ip_address(host.partition("%")[0])
    except ValueError:
        return host or "unknown"
    if parsed.version == 6 and not parsed.is_loopback:
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


Audit = Callable[[str, str, str, Mapping[str, object]], None]


async def report_failures(guard: AuthGuard, audit: Audit, *, tick_s: float = REPORT_TICK_S) -> None:
    """Log and audit the guard's reports as they fall due, until cancelled; on cancellation,
    everything still pending (bounded, shielded: a stopping service reports what it saw)."""
    try:
        while True:
            await anyio.sleep(tick_s)
            await _write(guard.due(), audit, guard.settings.window_s)
    finally:
        with anyio.CancelScope(shield=True), anyio.move_on_after(_AUDIT_S):
            await _write(guard.due(everything=True), audit, guard.settings.window_s)


async def _write(reports: list[FailureReport], audit: Audit, window_s: float) -> None:
    for report in reports:
        logger.warning("%s", report.line())
        try:
            with anyio.fail_after(_AUDIT_S):
                write = partial(audit, _ACTOR, AUTH_FAILED, report.address, report.detail(window_s))
                await anyio.to_thread.run_sync(write, abandon_on_cancel=True)
        except (UsageError, TimeoutError) as error:
            logger.warning("cannot audit failed authentication from %s: %s", report.address, error)
