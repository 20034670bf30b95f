"""The seam where screening of tool definitions plugs in (R5).

Vetting asks a ``Screener`` for a ``Verdict`` on every tool that policy would expose; a tool
whose verdict is ``drop`` is not exposed and raises the event ``mcp.desc_rejected``. The
offline scorer is ``toolpool.vetting.screener.RuleScreener`` (scores are calibrated so that 1.0,
``PoolSettings.screen_threshold``'s default, is the drop line); ``PassingScreener`` passes
everything, for tests that need screening out of the way.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol

from toolpool.upstream import PublishedTool

__all__ = ["PASS", "PassingScreener", "Peer", "Screener", "Verdict", "peer_names"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """A screening outcome with the reasons behind it (local text, safe to log)."""

    drop: bool
    score: float = 0.0
    reasons: tuple[str, ...] = ()


PASS = Verdict(drop=False)


@dataclass(frozen=True, slots=True)
class Peer:
    """Another server's tool as the screener sees it: its name and its description (untrusted)."""

    name: str
    description: str = ""


def peer_names(peers: Collection[str | Peer]) -> frozenset[str]:
    """The names among ``peers``: plain names as they are, and each ``Peer``'s name."""
    return frozenset(peer.name if isinstance(peer, Peer) else peer for peer in peers)


class Screener(Protocol):
    """Scores tool definitions and results; must be offline and deterministic.

    ``peers`` is what else the pool knows: names (other tools' remote and local names, other
    aliases) and ``Peer`` definitions (other servers' tools with their descriptions), so that a
    description that re-defines, redirects or changes what another tool does can be seen.
    """

    def screen_tool(self, tool: PublishedTool, peers: Collection[str | Peer] = ()) -> Verdict: ...

    def screen_text(self, text: str) -> Verdict: ...


class PassingScreener:
    """Passes everything: for tests that need screening out of the way."""

    def screen_tool(self, tool: PublishedTool, peers: Collection[str | Peer] = ()) -> Verdict:
        return PASS

    def screen_text(self, text: str) -> Verdict:
        return PASS
