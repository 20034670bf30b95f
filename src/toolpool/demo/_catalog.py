"""The demo kinds: what each one is called, publishes, and where it can run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from mcp.server.lowlevel import Server

from toolpool.demo._alpha import build_alpha
from toolpool.demo._beta import build_beta
from toolpool.demo._faulty import build_faulty
from toolpool.demo._paged import DEFAULT_PAGE_SIZE, DEFAULT_TOOL_COUNT, build_paged
from toolpool.demo._poisoned import build_poisoned
from toolpool.demo._slow import build_slow
from toolpool.demo._stubborn import build_stubborn

__all__ = ["KINDS", "TRANSPORTS", "DemoOptions", "Kind", "Transport"]

Transport = Literal["stdio", "http", "sse"]
TRANSPORTS: tuple[Transport, ...] = ("stdio", "http", "sse")


@dataclass(frozen=True, slots=True)
class DemoOptions:
    """Options only the paged kind reads."""

    tools: int = DEFAULT_TOOL_COUNT
    page_size: int = DEFAULT_PAGE_SIZE


@dataclass(frozen=True, slots=True)
class Kind:
    name: str
    summary: str
    build: Callable[[DemoOptions], Server[Any]]
    transports: tuple[Transport, ...] = TRANSPORTS
    outlives_stdin: bool = False
    """Keep the process running after the stdio loop ends on stdin EOF."""


KINDS: Mapping[str, Kind] = MappingProxyType(
    {
        kind.name: kind
        for kind in (
            Kind("alpha", "lookup (k1..k3), echo, process_info", lambda _: build_alpha()),
            Kind("beta", "lookup (k1, k2), write_note", lambda _: build_beta()),
            Kind(
                "paged",
                'tool_000.. paginated in tools/list; the cursor after page one is ""',
                lambda options: build_paged(options.tools, options.page_size),
            ),
            Kind("faulty", "ok, fail (hostile error text), hang, crash (exits 3)", lambda _: build_faulty()),
            Kind(
                "poisoned",
                "add; weather and format_text hide instructions; fetch_page returns an injected page",
                lambda _: build_poisoned(),
            ),
            Kind("slow", "sleep (ms, at most 30000): reports the calls in flight", lambda _: build_slow()),
            Kind(
                "stubborn",
                "ping, pids; ignores SIGTERM/SIGINT/SIGHUP, keeps a child, outlives stdin EOF",
                lambda _: build_stubborn(),
                transports=("stdio",),
                outlives_stdin=True,
            ),
        )
    }
)
