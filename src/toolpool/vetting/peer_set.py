"""What else the pool knows when it screens a server's tools, kept in groups (issue 16, item 5).

A pool of 100,000 tools gives every connecting server the other servers' tools as peers. Built
afresh at every connect, that set cost ~0.3 s and the screener's indexes of it ~0.5 s (3 s once a
sentence had to be compared with every peer's description): linear per connect, so quadratic for a
pool that connects its servers one after another. A ``PeerSet`` is made of ``PeerGroup``s, one per
other server, which the pool keeps while that server's tools stay the same and which the screener
indexes once each; a connect only puts the groups together.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import final

from toolpool.vetting.screening import Peer

__all__ = ["PeerGroup", "PeerSet"]


@final
class PeerGroup:
    """One server's share of the peers: names (remote and local tool names, its alias) and its
    tools with their descriptions. Compared by identity: an index of a group is kept per object."""

    __slots__ = ("__weakref__", "described", "names")

    def __init__(self, peers: Iterable[str | Peer]) -> None:
        names: set[str] = set()
        described: set[Peer] = set()
        for peer in peers:
            if isinstance(peer, Peer):
                names.add(peer.name)
                if peer.description:
                    described.add(peer)
            else:
                names.add(peer)
        self.names = frozenset(names)
        self.described = frozenset(described)


@final
class PeerSet:
    """The peers a screener is given, as a collection of names and ``Peer`` definitions.

    ``excluded`` names are left out of it (a server's own tool names: a server naming its own
    tools is no shadowing, even where another server shares a name); the groups still hold
    them, so a set without them costs nothing to make. Immutable; compared by identity, like its
    groups.
    """

    __slots__ = ("__weakref__", "_described", "_every", "_names", "excluded", "groups")

    def __init__(self, groups: Iterable[PeerGroup], *, excluded: Iterable[str] = ()) -> None:
        self.groups = tuple(groups)
        self.excluded = frozenset(excluded)
        self._every: frozenset[str] | None = None
        self._names: frozenset[str] | None = None
        self._described: bool | None = None

    @classmethod
    def of(cls, peers: Iterable[str | Peer]) -> PeerSet:
        """``peers`` as one group (a ``PeerSet`` as it is)."""
        return peers if isinstance(peers, PeerSet) else cls((PeerGroup(peers),))

    def without(self, names: Iterable[str]) -> PeerSet:
        """The same peers, less those named ``names``."""
        return PeerSet(self.groups, excluded=self.excluded.union(names))

    @property
    def every_name(self) -> frozenset[str]:
        """Every group's names, the excluded ones too."""
        if self._every is None:
            groups = self.groups
            self._every = groups[0].names.union(*(g.names for g in groups[1:])) if groups else frozenset()
        return self._every

    @property
    def names(self) -> frozenset[str]:
        """The peers' names: plain names and each ``Peer``'s, less the excluded ones."""
        if self._names is None:
            self._names = self.every_name - self.excluded if self.excluded else self.every_name
        return self._names

    def described(self) -> Iterator[Peer]:
        """The peers given with a description, less the excluded names (a peer published by two
        servers comes once per server)."""
        excluded = self.excluded
        for group in self.groups:
            for peer in group.described:
                if peer.name not in excluded:
                    yield peer

    def has_described(self) -> bool:
        if self._described is None:
            self._described = next(self.described(), None) is not None
        return self._described

    def __iter__(self) -> Iterator[str | Peer]:
        yield from self.names
        yield from self.described()

    def __len__(self) -> int:
        return len(self.names) + sum(1 for _ in self.described())

    def __bool__(self) -> bool:
        return bool(self.names)  # every described peer's name is among the names

    def __contains__(self, item: object) -> bool:
        if isinstance(item, str):
            return item in self.names
        if not isinstance(item, Peer) or item.name in self.excluded:
            return False
        if not item.description:
            return item.name in self.names
        return any(item in group.described for group in self.groups)
