"""The tool-table alarm: a listing that grew past what was approved raises ``mcp.tools_grew``,
with the difference, a metric and an audit entry, even though R2 refuses the connection."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests.helpers import READ, scripted_server, tool_def, write_config, write_spec
from tests.serve.ui_helpers import csrf_of, log_in, serve_ui
from tests.telemetry.otel_helpers import Recorded, recorded
from toolpool import ConnectionRefused, Pool
from toolpool.store import Store
from toolpool.testing import EventRecorder

TIMEOUT = 60


@pytest.fixture
def otel() -> Iterator[Recorded]:
    yield from recorded()


def _server(tmp_path: Path, tools: list[dict[str, object]], policy: dict[str, dict[str, object]]) -> str:
    return scripted_server("grow", write_spec(tmp_path, pages=[tools]), policy)


@pytest.mark.anyio
async def test_a_server_that_publishes_tools_its_policy_does_not_name_raises_tools_grew_and_is_refused(
    tmp_path: Path, otel: Recorded
) -> None:
    published = [tool_def("read"), tool_def("exfiltrate"), tool_def("wipe")]
    config = write_config(tmp_path, _server(tmp_path, published, {"read": {"action": "r", **READ}}))
    events = EventRecorder()
    async with Pool(config, on_event=events, telemetry=otel.telemetry) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionRefused):
            await pool.connect("grow")
        store = pool.store
        assert store is not None
    (grew,) = events.of_kind("mcp.tools_grew", "grow")
    assert grew.detail["new"] == ("exfiltrate", "wipe")
    assert grew.detail["new_count"] == 2 and grew.detail["published"] == 3
    assert [p.value for p in otel.points("toolpool.tools_grew")] == [1]
    with Store.open(config.store_url) as opened:
        audited = [e for e in opened.audit.audit_events() if e.action == "mcp.tools_grew"]
    assert [e.resource for e in audited] == ["grow"]


@pytest.mark.anyio
async def test_a_listing_whose_tokens_jump_past_the_factor_raises_tools_grew(tmp_path: Path) -> None:
    policy = {"read": {"action": "r", **READ}}
    small = [tool_def("read", description="reads one record")]
    config = write_config(tmp_path, _server(tmp_path, small, policy))
    events = EventRecorder()
    async with Pool(config, on_event=events) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("grow")
            await pool.disconnect("grow")
            write_spec(tmp_path, pages=[[tool_def("read", description="reads one record. " * 60)]])
            await pool.connect("grow")  # quarantined (R7), and the alarm names the growth
    (grew,) = events.of_kind("mcp.tools_grew", "grow")
    assert grew.detail["new"] == ()
    assert grew.detail["tokens"] > 1.5 * grew.detail["baseline_tokens"] > 0  # type: ignore[operator]
    assert any("tokens" in reason for reason in grew.detail["reasons"])  # type: ignore[attr-defined]
    assert events.of_kind("mcp.tool_changed", "grow")


@pytest.mark.anyio
async def test_an_unchanged_listing_with_a_forbidden_tool_raises_no_alarm_on_reconnect(
    tmp_path: Path,
) -> None:
    policy = {"read": {"action": "r", **READ}, "wipe": {"action": False}}
    config = write_config(tmp_path, _server(tmp_path, [tool_def("read"), tool_def("wipe")], policy))
    events = EventRecorder()
    async with Pool(config, on_event=events) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("grow")
            await pool.disconnect("grow")
            await pool.connect("grow")
    assert len(events.of_kind("mcp.connected", "grow")) == 2
    assert events.of_kind("mcp.tools_grew") == []


def test_the_web_ui_shows_a_banner_for_a_recent_tools_grew_event_on_every_page(tmp_path: Path) -> None:
    with (
        Store.open(f"sqlite:///{tmp_path / 'toolpool.db'}") as store,
        serve_ui(store) as served,
        served.client() as client,
    ):
        log_in(client)
        assert "Tool table grew" not in client.get("/").text
        store.audit.audit(
            "pool",
            "mcp.tools_grew",
            "grow",
            {"new": ("exfiltrate",), "published": 3, "reasons": ("1 tool(s) the policy does not name",)},
        )
        for path in ("/", "/audit", "/quarantine"):
            page = client.get(path).text
            assert "Tool table grew" in page and "exfiltrate" in page, path
        client.post("/logout", data={"csrf": csrf_of(client)})
        assert "Tool table grew" not in client.get("/login").text  # nothing shown before login
