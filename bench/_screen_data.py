"""The screener's data sets: the shared development sets and the repository's held-out set."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolpool.upstream import PublishedTool
from toolpool.vetting.screening import Peer

__all__ = [
    "BATCHES",
    "DEFAULT_DATASETS",
    "HELD_OUT",
    "Entry",
    "dedupe_by_description",
    "load",
    "load_batches",
    "load_held_out",
]

DEFAULT_DATASETS = Path(__file__).resolve().parents[1] / "tests" / "data" / "datasets"
HELD_OUT = Path(__file__).resolve().parents[1] / "tests" / "vetting" / "screener_heldout.jsonl"
# Batches written after issue 18, apart from the rules' tuning data (RESULTS.md has first runs).
BATCHES = tuple(sorted((Path(__file__).resolve().parent / "data").glob("screen_batch_*.jsonl")))


@dataclass(frozen=True, slots=True)
class Entry:
    id: str
    server: str | None
    tool: PublishedTool
    label: str  # "malicious" | "benign" | "real"
    category: str | None
    peers: frozenset[str] = field(default_factory=frozenset)
    batch: str = ""  # held-out set: "A", "B" or "C" (when it was written; see RESULTS.md)
    # What ``Pool._peers`` passes today: every name of the other servers, local names and aliases,
    # including names that this tool's own server also publishes.
    pool_peers: frozenset[str] = field(default_factory=frozenset)
    # The peers' definitions (name and description), as the pool passes them since issue 18.
    described: frozenset[Peer] = field(default_factory=frozenset)

    @property
    def hard_negative(self) -> bool:
        return self.category == "hard_negative"


def load(path: Path) -> list[Entry]:
    """One data set's ``normalized.jsonl``, with the peers the pool would know for each tool.

    Peers are the names on *other* servers: the peers listed with an entry (mcpproxy-go's
    shadowing cases), and for real tools every other server's tool names and aliases in the file
    (minus the tool's own server's names, which are its siblings).
    """
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_server: dict[str, set[str]] = {}
    definitions: dict[str, set[Peer]] = {}
    for row in rows:
        if row["label"] == "real" and row["server"] and row["name"]:
            by_server.setdefault(row["server"], set()).add(row["name"])
            definitions.setdefault(row["server"], set()).add(Peer(row["name"], row.get("description") or ""))
    everyone = {name for names in by_server.values() for name in names} | set(by_server)
    described = {
        server: frozenset(
            p
            for other, peers in definitions.items()
            if other != server
            for p in peers
            if p.name not in by_server[server]  # a sibling's name is not a peer's (admission agrees)
        )
        for server in definitions
    }
    return [_entry(row, by_server, everyone, described) for row in rows]


def _pool_peers(server: str, by_server: dict[str, set[str]]) -> frozenset[str]:
    others = {alias: names for alias, names in by_server.items() if alias != server}
    remote = {name for names in others.values() for name in names}
    local = {f"mcp__{alias}__{name}" for alias, names in others.items() for name in names}
    return frozenset(remote | local | set(others))


def _entry(
    row: dict[str, Any],
    by_server: dict[str, set[str]],
    everyone: set[str],
    described: dict[str, frozenset[Peer]],
) -> Entry:
    server = row.get("server")
    pool_peers: frozenset[str] = frozenset()
    if row["label"] == "real":
        peers = everyone - by_server.get(server or "", set()) - {server or ""}
        pool_peers = _pool_peers(server or "", by_server)
        definitions = described.get(server or "", frozenset())
    else:
        listed = [p for p in (row.get("extra") or {}).get("peers") or [] if p.get("server") != server]
        peers = {p["tool"]["name"] for p in listed} | {p["server"] for p in listed}
        definitions = frozenset(Peer(p["tool"]["name"], p["tool"].get("description") or "") for p in listed)
    tool = PublishedTool(
        name=row.get("name") or "tool",
        description=row.get("description") or "",
        input_schema=row.get("inputSchema") or {"type": "object"},
        output_schema=(row.get("extra") or {}).get("outputSchema"),
        annotations=(row.get("extra") or {}).get("annotations") or {},
    )
    category = row.get("category")
    return Entry(
        str(row["id"]),
        server,
        tool,
        row["label"],
        category,
        frozenset(peers),
        pool_peers=pool_peers,
        described=definitions,
    )


def load_held_out(path: Path = HELD_OUT) -> list[Entry]:
    """The held-out set: peers are names only."""
    return [_written(row, frozenset(row.get("peers") or ()), frozenset()) for row in _rows(path)]


def load_batches(paths: tuple[Path, ...] = BATCHES) -> list[Entry]:
    """The post-issue-18 batches: like the held-out set, with peers given as whole definitions."""
    entries = []
    for path in paths:
        for row in _rows(path):
            listed = row.get("peers") or []
            names = frozenset({p["name"] for p in listed} | {p["server"] for p in listed})
            definitions = frozenset(Peer(p["name"], p.get("description") or "") for p in listed)
            entries.append(_written(row, names, definitions))
    return entries


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _written(row: dict[str, Any], peers: frozenset[str], described: frozenset[Peer]) -> Entry:
    """An entry of a set written for this repository (no server; peers as the file gives them)."""
    tool = PublishedTool(
        name=row["name"],
        description=row.get("description") or "",
        input_schema=row.get("inputSchema") or {"type": "object"},
    )
    category = row.get("category")
    return Entry(row["id"], None, tool, row["label"], category, peers, row["batch"], described=described)


def dedupe_by_description(entries: list[Entry]) -> Iterator[Entry]:
    """Entries with a description seen before are left out (empty descriptions count by schema)."""
    seen: set[str] = set()
    for entry in entries:
        key = entry.tool.description or json.dumps([entry.tool.name, entry.tool.input_schema], sort_keys=True)
        if key not in seen:
            seen.add(key)
            yield entry
