"""The tool-table alarm: a server whose published list grew past what was approved.

R2 already refuses a listing with names the policy does not name, so a grown table never
reaches a model. But growth is itself an incident (a server preparing a rug pull, a supply-chain
change, a listing padded to flood prompts), and operators want it named, counted and shown,
whether or not the connection was refused. Growth is any of:

- names the policy does not name (``new``);
- more tools than the policy names (a name published twice counts twice);
- estimated tool-list tokens above the last approved listing's by more than ``factor``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toolpool._list_tokens import definition_tokens
from toolpool.config import REMOTE_NAME_PATTERN, ServerSpec
from toolpool.upstream import PublishedTool
from toolpool.vetting.pins import Pins

__all__ = ["Growth", "growth_of", "listing_tokens", "pinned_tokens"]

# Names written into the event: enough to act on, never a flood.
_NAMES_SHOWN = 20


@dataclass(frozen=True, slots=True)
class Growth:
    """How a listing grew; every field is local or a checked name, safe for events and logs."""

    new: tuple[str, ...]
    new_count: int
    published: int
    pinned: int
    tokens: int
    baseline_tokens: int
    factor: float
    reasons: tuple[str, ...]

    def detail(self) -> dict[str, object]:
        return {
            "new": self.new,
            "new_count": self.new_count,
            "published": self.published,
            "pinned": self.pinned,
            "tokens": self.tokens,
            "baseline_tokens": self.baseline_tokens,
            "factor": self.factor,
            "reasons": self.reasons,
        }


def listing_tokens(published: Sequence[PublishedTool]) -> int:
    """The estimated tokens of a whole listing, as published."""
    return sum(definition_tokens(tool.definition()) for tool in published)


def pinned_tokens(spec: ServerSpec, pins: Pins) -> int:
    """The estimated tokens of the approved definitions of ``spec``'s tools (0 when no pin
    keeps its definition)."""
    total = 0
    pinned = pins.pins_of(spec.alias)
    for name in spec.tools:
        pin = pinned.get(name)
        if pin is not None and pin.definition is not None:
            total += definition_tokens(pin.definition)
    return total


def growth_of(
    spec: ServerSpec,
    published: Sequence[PublishedTool],
    pins: Pins,
    baseline_tokens: int,
    factor: float,
    tokens: int | None = None,
) -> Growth | None:
    """How ``published`` grew against ``spec``'s policy, its pins and ``baseline_tokens``
    (the last approved listing; 0: unknown), or None when it did not."""
    policy: Mapping[str, object] = spec.tools
    unnamed = [tool.name for tool in published if tool.name not in policy]
    known = pins.pins_of(spec.alias)
    pinned = sum(1 for name in policy if name in known)
    size = listing_tokens(published) if tokens is None else tokens
    reasons = []
    if unnamed:
        reasons.append(f"{len(unnamed)} tool(s) the policy does not name")
    if len(published) > len(policy):
        reasons.append(f"{len(published)} tools published, {len(policy)} approved ({pinned} pinned)")
    if baseline_tokens and size > baseline_tokens * factor:
        reasons.append(f"the listing grew from about {baseline_tokens} to {size} tokens (over {factor:g}x)")
    if not reasons:
        return None
    plain = sorted(name for name in unnamed if REMOTE_NAME_PATTERN.match(name))
    return Growth(
        new=tuple(plain[:_NAMES_SHOWN]),
        new_count=len(unnamed),
        published=len(published),
        pinned=pinned,
        tokens=size,
        baseline_tokens=baseline_tokens,
        factor=factor,
        reasons=tuple(reasons),
    )
