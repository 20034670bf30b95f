"""The rule screener's findings over every definition the repository holds, as digests per case.

``screener_reference.json`` was first written from ``main`` at 609de79 (before the speed work of issue
18, RESULTS.md §4bc) and is rewritten whenever a reading changes on purpose; ``test_screener_reference.py`` recomputes it and fails on any difference, so a
change made for speed cannot change a verdict, a score, a reason or a finding. A change meant to
alter readings rewrites the file on purpose:

    PYTHONPATH=$PWD/src:$PWD .venv/bin/python -m tests.vetting.screener_reference --write

Cases: every definition of ``bench/data/screen_batch_*.jsonl``, the held-out set and the shared
data sets (mcpproxy-go, livemcpbench), each screened with its peers' definitions and with names
only (``explain_tool`` and ``screen_tool``), and its description screened as a result text.

Computed in a child process with ``PYTHONHASHSEED=0``: at 609de79 a few reasons named whichever
of several peers a set yields first (``names another server's tool (X)``, batches H to AC), so
33 to 45 of the 1,924 cases differed between two hash seeds (in that detail only). Since RESULTS.md
§4bi the names are taken in the text's order and no case differs (``test_screener_deterministic.py``);
the seed stays fixed so that a regression shows there, not here.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import toolpool
from toolpool.vetting.peer_set import PeerSet
from toolpool.vetting.screener import RuleScreener

REFERENCE = Path(__file__).with_name("screener_reference.json")
_ROOT = Path(__file__).resolve().parents[2]


def screen_data() -> ModuleType:
    """``bench/_screen_data`` (the loaders ``bench/screen_quality.py`` reads the sets with)."""
    name = "_screen_data"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, _ROOT / "bench" / "_screen_data.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def cases() -> Iterator[tuple[str, Any]]:
    """(a key unique over the sets, its ``Entry``) for every definition."""
    data = screen_data()
    sets: list[tuple[str, list[Any]]] = [
        (name, data.load(data.DEFAULT_DATASETS / name / "normalized.jsonl"))
        for name in ("mcpproxy-go", "livemcpbench")
    ]
    sets.append(("heldout", data.load_held_out()))
    sets += [(path.stem, data.load_batches((path,))) for path in data.BATCHES]
    for name, entries in sets:
        for index, entry in enumerate(entries):
            yield f"{name}/{index}/{entry.id}", entry


def findings(screener: RuleScreener, entry: Any) -> str:
    """One short digest per way of screening ``entry``: with described peers, names only, as text."""
    out = []
    for config, peers in (
        ("described", PeerSet.of([*entry.peers, *entry.described])),
        ("names", PeerSet.of(entry.peers)),
    ):
        verdict = screener.screen_tool(entry.tool, peers)
        explained = screener.explain_tool(entry.tool, peers)
        out.append(_digest([config, verdict.drop, verdict.score, verdict.reasons, explained]))
    text = screener.screen_text(entry.tool.description)
    out.append(_digest(["text", text.drop, text.score, text.reasons]))
    return " ".join(out)


def compute() -> dict[str, str]:
    """Every case's digests, from a child process with a fixed hash seed and this ``toolpool``."""
    source = Path(toolpool.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": os.pathsep.join([str(source), str(_ROOT)])}
    child = subprocess.run(
        [sys.executable, "-m", "tests.vetting.screener_reference", "--print"],
        env=env,
        cwd=_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=900,
    )
    result: dict[str, str] = json.loads(child.stdout)
    return result


def _compute_here() -> dict[str, str]:
    screener = RuleScreener()
    return {key: findings(screener, entry) for key, entry in cases()}


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, ensure_ascii=False).encode()).hexdigest()[:16]


if __name__ == "__main__":
    if sys.argv[1:] == ["--print"]:
        print(json.dumps(_compute_here()))
        sys.exit()
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.vetting.screener_reference --write")
    lines = [f"{json.dumps(key)}: {json.dumps(value)}" for key, value in sorted(compute().items())]
    REFERENCE.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    print(f"wrote {REFERENCE}")
