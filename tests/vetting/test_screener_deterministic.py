"""A verdict's reasons do not depend on the interpreter's hash seed.

The peers a definition names were collected from a set, so which name "names another server's tool (X)"
gave, and the order of the reasons, changed from one process to the next (31 of 1,268 batch definitions
between two seeds). Reasons go to the audit log and ``toolpool screen --explain``: the same definition
must read the same way every time. The names are now taken in the order the text writes them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

_PEERS = ("zinc_report", "alpha_lookup", "mango_sync", "delta_export", "kiwi_upload", "bravo_notify")
_PROBE = f"""
import json
from toolpool.upstream import PublishedTool
from toolpool.vetting.screener import RuleScreener

peers = frozenset({list(_PEERS)!r})
text = "Plans trips. It works beside " + ", ".join(sorted(peers, reverse=True)) + " when the person asks."
tool = PublishedTool("trip_planner", text, {{"type": "object", "properties": {{}}}})
screener = RuleScreener()
print(json.dumps([list(screener.screen_tool(tool, peers).reasons), [list(r) for r in screener.explain_tool(tool, peers)]]))
"""


def _reasons(seed: int) -> object:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        env={**os.environ, "PYTHONHASHSEED": str(seed)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout)


def test_the_reasons_of_a_verdict_are_the_same_under_every_hash_seed() -> None:
    first = _reasons(1)
    assert "(zinc_report)" in json.dumps(first)  # the first name the text writes
    assert all(_reasons(seed) == first for seed in (2, 3, 4, 5))
