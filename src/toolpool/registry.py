"""The Registry (the live set of exposed tools) and Snapshots (immutable views of it).

The registry changes only by whole-connection steps: ``admit`` adds all of one connection's
tools, ``revoke`` removes all of them (R11). Each change builds a new immutable state and
swaps it in without awaiting, so a change is atomic and a Snapshot taken at any moment is
consistent. Taking a snapshot costs O(1): the snapshot of the current state is built once,
at the change, and shared by everyone who asks.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from toolpool.vetting import ExposedTool

__all__ = ["Registry", "Snapshot"]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The immutable set of tools one model request and its reply use.

    ``version`` grows strictly with every change of what is shown; two snapshots of an
    unchanged state share their version.
    """

    version: int
    tools: tuple[ExposedTool, ...]
    _by_name: Mapping[str, ExposedTool] = field(repr=False, compare=False)
    _alias_tokens: Mapping[str, int] = field(repr=False, compare=False)

    @classmethod
    def of(cls, version: int, tools: Iterable[ExposedTool]) -> Snapshot:
        ordered = tuple(sorted(tools, key=lambda tool: tool.name))
        tokens: dict[str, int] = {}
        for tool in ordered:
            tokens[tool.alias] = tokens.get(tool.alias, 0) + tool.list_tokens
        return cls(
            version,
            ordered,
            MappingProxyType({tool.name: tool for tool in ordered}),
            MappingProxyType(dict(sorted(tokens.items()))),
        )

    def get(self, name: str) -> ExposedTool | None:
        return self._by_name.get(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(tool.name for tool in self.tools)

    @property
    def list_tokens(self) -> int:
        """What listing every tool of this snapshot costs a model's prompt (estimated)."""
        return sum(self._alias_tokens.values())

    @property
    def list_tokens_by_alias(self) -> Mapping[str, int]:
        """``list_tokens`` per alias with tools in this snapshot, computed once when it was made
        (the usage ledger records it for every listing)."""
        return self._alias_tokens

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[ExposedTool]:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)


class Registry:
    """The live set of one pool's exposed tools, owned connection by connection."""

    def __init__(self) -> None:
        self._snapshot = Snapshot.of(0, ())
        self._owners: dict[int, tuple[ExposedTool, ...]] = {}

    @property
    def version(self) -> int:
        return self._snapshot.version

    def snapshot(self) -> Snapshot:
        """The current state, in O(1)."""
        return self._snapshot

    def holds(self, tool: ExposedTool) -> bool:
        """Whether ``tool`` is the very object registered under its name (gate 2)."""
        return self._snapshot.get(tool.name) is tool

    def tools_of(self, owner: object) -> tuple[ExposedTool, ...]:
        return self._owners.get(id(owner), ())

    def owned(self) -> tuple[tuple[ExposedTool, ...], ...]:
        """Each connection's tools, as admitted: the same tuple object for as long as the
        connection stays admitted (so what is derived from one can be kept by its identity)."""
        return tuple(self._owners.values())

    def admit(self, owner: object, tools: Iterable[ExposedTool]) -> None:
        """Add all of ``owner``'s tools in one step.

        Raises:
            ValueError: ``owner`` is already registered, a tool belongs to another owner, or
                a local name is taken; nothing is changed.
        """
        new = tuple(tools)
        if id(owner) in self._owners:
            raise ValueError("this connection is already admitted")
        current = dict(self._snapshot._by_name)
        for tool in new:
            if tool.owner is not owner:
                raise ValueError(f"tool {tool.name!r} belongs to another connection")
            if tool.name in current:
                raise ValueError(f"local name {tool.name!r} is already registered")
            current[tool.name] = tool
        self._owners[id(owner)] = new
        self._snapshot = Snapshot.of(self.version + 1, current.values())

    def revoke(self, owner: object) -> tuple[ExposedTool, ...]:
        """Remove all of ``owner``'s tools in one step and return them; idempotent (R11).

        Only the tools that are this owner's objects go: a tool of the same name that another
        connection registered since is never removed by mistake.
        """
        removed = self._owners.pop(id(owner), ())
        if not removed:
            return ()
        doomed = {id(tool) for tool in removed}
        remaining = [tool for tool in self._snapshot.tools if id(tool) not in doomed]
        self._snapshot = Snapshot.of(self.version + 1, remaining)
        return removed
