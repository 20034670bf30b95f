"""R5 regression: the screener keeps its targets on the shared development data sets and on the
repository's own held-out set. ``bench/screen_quality.py`` prints the full report."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.data import DATASETS
from toolpool.upstream import PublishedTool
from toolpool.vetting.screener import RuleScreener
from toolpool.vetting.screening import Peer

HELD_OUT = Path(__file__).with_name("screener_heldout.jsonl")
SCREENER = RuleScreener()


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def published(row: dict[str, Any]) -> PublishedTool:
    extra = row.get("extra") or {}
    return PublishedTool(
        name=row.get("name") or "tool",
        description=row.get("description") or "",
        input_schema=row.get("inputSchema") or {"type": "object"},
        output_schema=extra.get("outputSchema"),
        annotations=extra.get("annotations") or {},
    )


def labelled_peers(row: dict[str, Any]) -> set[str]:
    """The other servers' tools an entry names as its peers (the cross-server shadowing cases)."""
    others = [p for p in (row.get("extra") or {}).get("peers") or [] if p.get("server") != row.get("server")]
    return {p["tool"]["name"] for p in others} | {p["server"] for p in others}


def real_tools(data: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], frozenset[str]]]:
    """Real tools with the names of every other server as peers (siblings are not peers)."""
    by_server: dict[str, set[str]] = {}
    for row in data:
        by_server.setdefault(row["server"], set()).add(row["name"])
    for row in data:
        others = {name for server, names in by_server.items() if server != row["server"] for name in names}
        yield row, frozenset(others - by_server[row["server"]])


def rates(data: list[dict[str, Any]], peers: bool = True) -> tuple[float, float]:
    """(recall on malicious, share of benign including hard negatives that is dropped)."""
    drops = {
        id(row): SCREENER.screen_tool(published(row), labelled_peers(row) if peers else ()).drop
        for row in data
    }
    malicious = [drops[id(row)] for row in data if row["label"] == "malicious"]
    benign = [drops[id(row)] for row in data if row["label"] == "benign"]
    return sum(malicious) / len(malicious), sum(benign) / len(benign)


def test_r5_mcpproxy_go_recall_is_at_least_90_percent_with_at_most_5_percent_of_benign_dropped() -> None:
    recall, false_drops = rates(rows(DATASETS / "mcpproxy-go" / "normalized.jsonl"))
    assert recall >= 0.90
    assert false_drops <= 0.05


def test_r5_at_most_2_percent_of_livemcpbench_real_tools_are_dropped() -> None:
    data = rows(DATASETS / "livemcpbench" / "normalized.jsonl")
    dropped = [
        row["id"] for row, peers in real_tools(data) if SCREENER.screen_tool(published(row), peers).drop
    ]
    assert len(data) == 527
    assert len(dropped) / len(data) <= 0.02, dropped


def test_r5_the_real_tools_of_mcpproxy_go_are_not_dropped() -> None:
    data = [row for row in rows(DATASETS / "mcpproxy-go" / "normalized.jsonl") if row["label"] == "real"]
    dropped = [
        row["id"] for row, peers in real_tools(data) if SCREENER.screen_tool(published(row), peers).drop
    ]
    assert len(dropped) / len(data) <= 0.02, dropped


def test_r5_the_held_out_set_keeps_the_same_targets() -> None:
    data = rows(HELD_OUT)
    for row in data:
        row["extra"] = {
            "peers": [{"server": "other", "tool": {"name": name}} for name in row.get("peers", [])]
        }
    recall, false_drops = rates(data)
    assert len(data) >= 40
    assert recall >= 0.90
    assert false_drops <= 0.05


# The batches the rules were tuned on after their first run; a new batch joins only once it has
# been screened once untouched and recorded (bench/RESULTS.md §4b).
TUNED_BATCHES = ("d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n")


def test_issue18_the_batches_keep_the_targets_with_their_peers_described() -> None:
    """Regression only: batches D-J were tuned on after their first run (RESULTS.md §4b, §4f, §4g)."""
    data_folder = Path(__file__).resolve().parents[2] / "bench" / "data"
    paths = [data_folder / f"screen_batch_{batch}.jsonl" for batch in TUNED_BATCHES]
    data = [row for path in paths for row in rows(path)]
    drops = {}
    for row in data:
        listed = row.get("peers") or []
        peers = [
            *{p["server"] for p in listed},
            *(Peer(p["name"], p.get("description") or "") for p in listed),
        ]
        drops[row["id"]] = SCREENER.screen_tool(published(row), peers).drop
    malicious = [drops[row["id"]] for row in data if row["label"] == "malicious"]
    benign = [drops[row["id"]] for row in data if row["label"] == "benign"]
    assert len(malicious) >= 50 and len(benign) >= 50
    assert sum(malicious) / len(malicious) >= 0.90
    assert sum(benign) / len(benign) <= 0.05


def test_issue18_with_the_lexical_model_at_most_1_percent_of_real_tools_are_dropped() -> None:
    # The model never saw a real tool in training (RESULTS.md §4e), so these are unseen tools.
    lexical = RuleScreener(lexical=True)
    data = [
        *rows(DATASETS / "livemcpbench" / "normalized.jsonl"),
        *(row for row in rows(DATASETS / "mcpproxy-go" / "normalized.jsonl") if row["label"] == "real"),
    ]
    dropped = [
        row["id"] for row, peers in real_tools(data) if lexical.screen_tool(published(row), peers).drop
    ]
    assert len(data) == 572
    assert len(dropped) / len(data) <= 0.01, dropped
