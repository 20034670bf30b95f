"""The UI's usage page shows each principal's quota, used / limit, when its pool has quotas."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from tests.helpers import ALPHA_TOOLS, demo_server
from tests.limit_helpers import limits_config
from tests.serve.ui_helpers import log_in, serve_ui
from toolpool.store import CallRecord, SecretKey, Store


def test_the_usage_page_shows_each_principals_quota_used_and_limit(tmp_path: Path) -> None:
    config = limits_config(
        tmp_path,
        demo_server("demo_alpha", "alpha", ALPHA_TOOLS),
        principals={"ana": {"quota_calls": 3}, "*": {"quota_calls": 1, "quota_wait_s": 5.0}},
    )
    now = datetime.now(UTC)
    with Store.open(config.store_url, key=SecretKey.generate()) as store:
        store.calls.record_calls(
            [
                CallRecord("s1", "ana", "demo_alpha", "echo", "ok", 2.0, 1, 1, at=now),
                CallRecord("s2", "bob", "demo_alpha", "echo", "ok", 2500.0, 1, 1, at=now),
            ]
        )
        with serve_ui(store, config=config.source) as served, served.client() as client:
            log_in(client)
            page = client.get("/usage")
    assert page.status_code == 200
    assert re.findall(r'<tr data-principal="([^"]*)"', page.text) == ["ana", "bob"]
    bob = page.text.split('<tr data-principal="bob"')[1].split("</tr>")[0]
    assert "1 / 1" in bob and "2.5 / 5.0" in bob and "exceeded" in bob
    ana = page.text.split('<tr data-principal="ana"')[1].split("</tr>")[0]
    assert "1 / 3" in ana and "exceeded" not in ana
