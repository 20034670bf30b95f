"""The screener's indexes of a ``PeerSet`` (issue 16, item 5): looked up, never searched.

Each ``PeerGroup`` (one server's tools) is indexed once while it lives: its peers by name, each
peer's content-word stems, and a posting list from stem to peers. A ``PeerSet`` (the groups a
connect puts together) adds, on first need, what depends on the whole pool: the stems too common
to tell peers apart, which groups hold each stem, and the peers of each name. So a sentence is
compared with the few peers that share its rarer words, not with every peer of the pool, and a
connect no longer pays for the pool's size through the peer checks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Hashable, Iterator
from dataclasses import dataclass
from typing import TypeVar
from weakref import WeakKeyDictionary

from toolpool.vetting.peer_set import PeerGroup, PeerSet
from toolpool.vetting.screener._stems import stems
from toolpool.vetting.screening import Peer

__all__ = ["COMMON_SHARE", "by_identity", "lowered_names", "names_peer", "peers_named"]

_Key = TypeVar("_Key", bound=Hashable)
_Value = TypeVar("_Value")

# A stem found in more than this share of the described peers (and more than three of them) tells
# no peer apart ("file", "content", "line" in a pool of 500 tools).
COMMON_SHARE = 0.02
_NAME_LIMIT = 600  # the description characters a peer is read by


@dataclass(frozen=True, slots=True)
class _GroupIndex:
    peers: tuple[Peer, ...]
    name_stems: tuple[frozenset[str], ...]  # of each peer's name
    postings: dict[str, tuple[int, ...]]  # stem of name and description -> positions in ``peers``
    by_name: dict[str, tuple[Peer, ...]]


@dataclass(frozen=True, slots=True)
class _SetIndex:
    common: frozenset[str]
    holding: dict[str, tuple[int, ...]]  # stem -> the groups whose peers have it


_GROUPS: WeakKeyDictionary[PeerGroup, _GroupIndex] = WeakKeyDictionary()
_SETS: WeakKeyDictionary[PeerSet, _SetIndex] = WeakKeyDictionary()
_NAMED: WeakKeyDictionary[PeerSet, dict[str, tuple[int, ...]]] = WeakKeyDictionary()


def _group(group: PeerGroup) -> _GroupIndex:
    index = _GROUPS.get(group)
    if index is None:
        peers = tuple(group.described)
        postings: dict[str, list[int]] = {}
        by_name: dict[str, list[Peer]] = {}
        for position, peer in enumerate(peers):
            for stem in stems(f"{peer.name} {peer.description[:_NAME_LIMIT]}"):
                postings.setdefault(stem, []).append(position)
            by_name.setdefault(peer.name, []).append(peer)
        index = _GROUPS[group] = _GroupIndex(
            peers,
            tuple(stems(peer.name) for peer in peers),
            {stem: tuple(found) for stem, found in postings.items()},
            {name: tuple(found) for name, found in by_name.items()},
        )
    return index


def _set(peers: PeerSet) -> _SetIndex:
    index = _SETS.get(peers)
    if index is None:
        counts: Counter[str] = Counter()
        holding: dict[str, list[int]] = {}
        described = 0
        for number, group in enumerate(peers.groups):
            grouped = _group(group)
            described += len(grouped.peers)
            for stem, found in grouped.postings.items():
                counts[stem] += len(found)
                holding.setdefault(stem, []).append(number)
        line = max(3, COMMON_SHARE * described)
        index = _SETS[peers] = _SetIndex(
            frozenset(stem for stem, count in counts.items() if count > line),
            {stem: tuple(found) for stem, found in holding.items()},
        )
    return index


def names_peer(words: frozenset[str], peers: PeerSet) -> bool:
    """Does some described peer (not an excluded name) share two of ``words``' stems with its name
    and description, one of them with its name? Common stems count for nothing."""
    index = _set(peers)
    rare = words - index.common
    if len(rare) < 2:
        return False
    hits: Counter[tuple[int, int]] = Counter()
    for stem in rare:
        for number in index.holding.get(stem, ()):
            for position in _group(peers.groups[number]).postings[stem]:
                hits[number, position] += 1
    for (number, position), shared in hits.items():
        if shared < 2:
            continue
        grouped = _group(peers.groups[number])
        if grouped.peers[position].name not in peers.excluded and not rare.isdisjoint(
            grouped.name_stems[position]
        ):
            return True
    return False


def peers_named(name: str, peers: PeerSet) -> Iterator[Peer]:
    """The described peers of ``name`` in every group (none if ``name`` is excluded)."""
    if name not in peers.names:
        return
    named = _NAMED.get(peers)
    if named is None:  # on the first name two servers share: which groups hold each name
        holding: dict[str, list[int]] = {}
        for number, group in enumerate(peers.groups):
            for peer_name in _group(group).by_name:
                holding.setdefault(peer_name, []).append(number)
        named = _NAMED[peers] = {peer_name: tuple(found) for peer_name, found in holding.items()}
    for number in named.get(name, ()):
        yield from _group(peers.groups[number]).by_name[name]


def by_identity(function: Callable[[_Key], _Value]) -> Callable[[_Key], _Value]:
    """``function`` remembered for the last few arguments, by their identity.

    A pool builds its peer names afresh at every connect, and admission screens each tool of a
    server with the same object. ``lru_cache`` would compare an equal copy (a server connected
    again into an unchanged pool) element by element at every lookup: 200,000 names per tool."""
    recent: list[tuple[_Key, _Value]] = []

    def remembered(key: _Key) -> _Value:
        for held, value in recent:
            if held is key:
                return value
        value = function(key)
        recent.insert(0, (key, value))
        del recent[_RECENT:]
        return value

    return remembered


_RECENT = 4


def lowered_names(names: Collection[str]) -> frozenset[str]:
    """The peer names, in lower case, that a sentence's words can hold (three letters or more):
    one set per pool when the pool passes one set for every tool, not a pass per sentence (a
    server whose every definition names a peer would otherwise cost definitions times peers)."""
    return _lowered(names) if isinstance(names, frozenset) else _lower(names)


def _lower(names: Collection[str]) -> frozenset[str]:
    return frozenset([name.lower() for name in names if len(name) > 2])  # a list: a fifth faster


@by_identity
def _lowered(names: frozenset[str]) -> frozenset[str]:
    return _lower(names)
