"""The seam where screening of tool definitions plugs in (R5).

Vetting asks a ``Screener`` for a ``Verdict`` on every tool that policy would expose; a tool
whose verdict is ``drop`` is not exposed and raises the event ``mcp.desc_rejected``. The
pool's default screener passes everything: the offline scorer that replaces it is the trust
boundary's work, and it plugs in here without any change to vetting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from toolpool.vetting.model import PublishedTool

__all__ = ["PASS", "PassingScreener", "Screener", "Verdict"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """A screening outcome with the reasons behind it (local text, safe to log)."""

    drop: bool
    score: float = 0.0
    reasons: tuple[str, ...] = ()


PASS = Verdict(drop=False)


class Screener(Protocol):
    """Scores one published tool definition; must be offline and deterministic."""

    def screen_tool(self, tool: PublishedTool) -> Verdict: ...


class PassingScreener:
    """The default until a real screener is configured: every definition passes."""

    def screen_tool(self, tool: PublishedTool) -> Verdict:
        return PASS
