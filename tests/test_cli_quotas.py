"""`toolpool usage --quotas`: each principal's quota in its current UTC period, used / limit,
from the store's usage (only calls that reached an upstream count), as a table or JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from tests.helpers import ALPHA_TOOLS, demo_server
from tests.limit_helpers import limits_config
from toolpool.demo import demo_environment
from toolpool.store import CallRecord, Store


def _records(now: datetime) -> list[CallRecord]:
    return [
        CallRecord("s1", "ana", "demo_alpha", "echo", "ok", 1500.0, 10, 10, at=now),
        CallRecord("s1", "ana", "demo_alpha", "echo", "denied", 1.0, 10, 10, at=now),
        CallRecord("s2", "bob", "demo_alpha", "echo", "ok", 10.0, 10, 10, at=now),
        CallRecord("s2", "bob", "demo_alpha", "lookup", "mcp_remote_error", 10.0, 10, 10, at=now),
    ]


def _usage(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "toolpool",
            "usage",
            "--quotas",
            *args,
            "--config",
            str(folder / "toolpool.toml"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **demo_environment(), "NO_COLOR": "1", "COLUMNS": "200"},
        cwd=folder,
    )


def test_usage_quotas_shows_used_and_limit_per_principal_counting_only_calls_that_reached_a_server(
    tmp_path: Path,
) -> None:
    config = limits_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        principals={
            "ana": {"quota_calls": 5, "quota_wait_s": 60.0},
            "cy": {"quota_calls": 9, "quota_period": "month"},
            "*": {"quota_calls": 2, "quota_period": "hour"},
        },
    )
    with Store.open(config.store_url) as store:
        store.calls.record_calls(_records(datetime.now(UTC)))
    shown = _usage(tmp_path, "--json")
    assert shown.returncode == 0, shown.stderr
    rows = {row["principal"]: row for row in json.loads(shown.stdout)}
    assert set(rows) == {"ana", "bob", "cy"}
    assert (rows["ana"]["calls"], rows["ana"]["calls_limit"], rows["ana"]["period"]) == (1, 5, "day")
    assert rows["ana"]["wait_s"] == 1.5 and rows["ana"]["wait_limit_s"] == 60.0
    assert (rows["bob"]["calls"], rows["bob"]["calls_limit"], rows["bob"]["exceeded"]) == (2, 2, True)
    assert (rows["cy"]["calls"], rows["cy"]["period"], rows["cy"]["exceeded"]) == (0, "month", False)
    table = _usage(tmp_path)
    assert table.returncode == 0, table.stderr
    assert "1 / 5" in table.stdout and "2 / 2" in table.stdout and "exceeded" in table.stdout


def test_usage_quotas_says_so_when_no_quota_is_configured(tmp_path: Path) -> None:
    limits_config(tmp_path, demo_server("demo_alpha", "alpha", ALPHA_TOOLS))
    shown = _usage(tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "no quotas" in shown.stdout
