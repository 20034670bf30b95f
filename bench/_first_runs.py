"""The rules as they stood when each training batch was first screened (its honest first run).

Each batch of issue 18 was screened once by the rules of a known commit before any rule was
changed for it (RESULTS.md §4b, §4d). Re-running those rules on the batch gives what they missed
on wording they had not seen, which is what a model beside the rules would have to add. The
commit's ``src`` is extracted with ``git archive`` into a temporary folder and run in a
subprocess, so the rules of this checkout are not imported twice.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

__all__ = ["FIRST_RUNS", "first_run_drops"]

_ROOT = Path(__file__).resolve().parents[1]
_DATA = _ROOT / "bench" / "data"
# batch -> (file, commit of its first run); from RESULTS.md §4b, §4d, §4f, §4h, §4j, §4l, §4n, §4p, §4s, §4u, §4x, §4ab, §4ad, §4ae, §4aj, §4ao, §4ar, §4as, §4av, §4aw, §4az, §4ba, §4bd, §4bg, §4bk, §4bp, §4bs, §4bu, §4bw, §4by, §4cg, §4ck, §4cm and §4co.
FIRST_RUNS = {
    "D": ("screen_batch_d.jsonl", "4a9289c"),
    "E": ("screen_batch_e.jsonl", "b6878a3"),
    "F": ("screen_batch_f.jsonl", "22dc513"),
    "G": ("screen_batch_g.jsonl", "0dd73e4"),
    "H": ("screen_batch_h.jsonl", "6f7195d"),
    "I": ("screen_batch_i.jsonl", "6f7195d"),
    "J": ("screen_batch_j.jsonl", "1303e8f"),
    "K": ("screen_batch_k.jsonl", "1a71adf"),  # §4h: the rules tuned on I and J
    "L": ("screen_batch_l.jsonl", "994f411"),  # §4j: the rules with the conduct signal
    "M": ("screen_batch_m.jsonl", "23939d8"),  # §4l: the rules after §4k
    "N": ("screen_batch_n.jsonl", "2982dbc"),  # §4n: the rules after §4m
    "O": ("screen_batch_o.jsonl", "b4fa1e1"),  # §4p: the rules after §4o
    "P": ("screen_batch_p.jsonl", "eb3581f"),  # §4s: the rules after §4q, §12f; model with O
    "Q": ("screen_batch_q.jsonl", "655a533"),  # §4u: the rules after §4t; model with O
    "R": ("screen_batch_r.jsonl", "abf0e63"),  # §4x: the rules after §4v; model with P and Q
    "S": ("screen_batch_s.jsonl", "78357bd"),  # §4ab: the rules after §4z, §12g; model with R
    "T": ("screen_batch_t.jsonl", "f86f766"),  # §4ad: the rules after §4ac; model with R
    "U": ("screen_batch_u.jsonl", "f86f766"),  # §4ae: the same rules (run at 7248ce6); model with R
    "V": ("screen_batch_v.jsonl", "c22ed3d"),  # §4aj: the rules after §4af, §4ag, §4ai; model with R
    "W": ("screen_batch_w.jsonl", "d6d0c85"),  # §4ao: the rules after §4ak, §4al, §4an; model with R
    "X": ("screen_batch_x.jsonl", "42230e0"),  # §4ar: the rules after §4ap, §4aq; model with R
    "Y": ("screen_batch_y.jsonl", "42230e0"),  # §4as: the same rules (run at 357b0bf); model with R
    "Z": ("screen_batch_z.jsonl", "05187e1"),  # §4av: the rules after §4at, §4au; model with R
    "AA": ("screen_batch_aa.jsonl", "c084b67"),  # §4aw: the rules of 637ce3e (after Z); model with R
    "AB": ("screen_batch_ab.jsonl", "fdfeeed"),  # §4az: the rules after §4ax, §4ay; model with R
    "AC": ("screen_batch_ac.jsonl", "89bfb92"),  # §4ba: the same rules (src of fdfeeed); model with R
    "AD": ("screen_batch_ad.jsonl", "7a3c0c7"),  # §4bd: the same rules (src of fdfeeed); model with R
    "AE": ("screen_batch_ae.jsonl", "1e2edda"),  # §4bg: the rules after §4bb, §4be, §4bf; model with R
    "AF": ("screen_batch_af.jsonl", "7e22b09"),  # §4bk: the rules after §4bh, §4bi, §4bj; model with R
    "AG": ("screen_batch_ag.jsonl", "8b9a073"),  # §4bp: the rules after §4bl-§4bo; model with R
    "AH": ("screen_batch_ah.jsonl", "e9362ac"),  # §4bs: the rules after §4bq, §4br; model with R
    "AI": ("screen_batch_ai.jsonl", "d96ec3e"),  # §4bu: the rules after §4bt; model with R
    "AJ": ("screen_batch_aj.jsonl", "a8af754"),  # §4bw: the rules after §4bt, §4bv; model with R
    "AK": ("screen_batch_ak.jsonl", "258f8b8"),  # §4by: the rules after §4bx; model with R
    "AL": ("screen_batch_al.jsonl", "46ade01"),  # §4cg: the rules after §4bz-§4cf; model with R
    "AM": ("screen_batch_am.jsonl", "1a11581"),  # §4ck: the rules after §4ch-§4cj; model with R
    "AN": ("screen_batch_an.jsonl", "4d13902"),  # §4cm: the rules after §4cl; model with R
    "AO": ("screen_batch_ao.jsonl", "b93041a"),  # §4co: the rules after §4cn; model with R
    "T1": ("tuner_checks.jsonl", "c101a1b"),
    "T2": ("tuner_checks.jsonl", "375e718"),
    "T3": ("tuner_checks.jsonl", "2984d0c"),
}

# Run under the old commit's ``src``: peers as definitions where that commit's seam had them.
_SCREEN = """
import json, sys
from toolpool.upstream import PublishedTool
from toolpool.vetting.screener import RuleScreener
try:
    from toolpool.vetting.screening import Peer
except ImportError:
    Peer = None
screener, batch, drops = RuleScreener(), sys.argv[2], {}
for line in open(sys.argv[1], encoding="utf-8"):
    row = json.loads(line) if line.strip() else None
    if row is None or row["batch"] != batch:
        continue
    listed = row.get("peers") or []
    peers = {p["name"] for p in listed} | {p["server"] for p in listed}
    if Peer is not None:
        peers |= {Peer(p["name"], p.get("description") or "") for p in listed}
    tool = PublishedTool(name=row["name"], description=row.get("description") or "",
                         input_schema=row.get("inputSchema") or {"type": "object"})
    drops[row["id"]] = screener.screen_tool(tool, frozenset(peers)).drop
json.dump(drops, sys.stdout)
"""


def first_run_drops(batch: str) -> dict[str, bool]:
    """Entry id -> dropped, by the rules of the batch's first-run commit."""
    name, commit = FIRST_RUNS[batch]
    archive = subprocess.run(
        ["git", "-C", str(_ROOT), "archive", commit, "src"], capture_output=True, check=True
    )
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
            tar.extractall(folder, filter="data")
        out = subprocess.run(
            [sys.executable, "-c", _SCREEN, str(_DATA / name), batch],
            capture_output=True,
            check=True,
            env={"PYTHONPATH": str(Path(folder) / "src")},
            timeout=300,
        )
    drops: dict[str, bool] = json.loads(out.stdout)
    return drops
