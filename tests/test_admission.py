"""Admission of a connection, all or nothing: R1, R2, R3, R4, R6 against real subprocesses."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from tests.helpers import (
    ALPHA_TOOLS,
    READ,
    children_of_this_process,
    demo_server,
    scripted_server,
    tool_def,
    write_config,
    write_spec,
)
from toolpool import ConnectionRefused, Pool, Ticket, UnknownAlias, UpstreamProtocolError, UpstreamUnavailable
from toolpool.testing import EventRecorder

pytestmark = pytest.mark.anyio

TIMEOUT = 60


def _policy(*names: str) -> dict[str, dict[str, object]]:
    return {name: {"action": f"t.{name.replace('.', '_')}", **READ} for name in names}


async def test_r1_connect_to_an_unknown_alias_raises_and_starts_nothing(tmp_path: Path) -> None:
    config = write_config(tmp_path, demo_server("demo_alpha", "alpha", ALPHA_TOOLS))
    before = children_of_this_process()
    async with Pool(config) as pool:
        with pytest.raises(UnknownAlias):
            await pool.connect("python -m toolpool.demo alpha")
        with pytest.raises(UnknownAlias):
            await pool.connect("demo_beta")
        assert children_of_this_process() == before
        assert pool.snapshot().tools == ()


async def test_r1_arguments_are_never_interpreted_by_a_shell(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    hostile = demo_server("demo_alpha", "alpha; touch " + str(marker), ALPHA_TOOLS, connect_timeout_s=20)
    config = write_config(tmp_path, hostile)
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(UpstreamUnavailable):
            await pool.connect("demo_alpha")
    assert not marker.exists()


async def test_r2_a_server_publishing_a_tool_the_policy_lacks_is_refused_with_the_name(
    tmp_path: Path,
) -> None:
    tools = {k: v for k, v in ALPHA_TOOLS.items() if k != "process_info"}
    recorder = EventRecorder()
    config = write_config(tmp_path, demo_server("demo_alpha", "alpha", tools))
    async with Pool(config, on_event=recorder) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionRefused) as refused:
            await pool.connect("demo_alpha")
        assert any(r.startswith("R2") and "'process_info'" in r for r in refused.value.reasons)
        assert pool.snapshot().tools == ()
        assert pool.connected == ()
        assert recorder.of_kind("mcp.refused", "demo_alpha")


async def test_r2_a_server_missing_a_tool_of_the_policy_is_refused_with_the_name(tmp_path: Path) -> None:
    tools = {**ALPHA_TOOLS, "delete_everything": {"action": "demo.delete", **READ}}
    config = write_config(tmp_path, demo_server("demo_alpha", "alpha", tools))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionRefused) as refused:
            await pool.connect("demo_alpha")
        assert any("does not publish" in r and "'delete_everything'" in r for r in refused.value.reasons)


async def test_r2_every_page_is_read_including_the_one_after_an_empty_string_cursor(tmp_path: Path) -> None:
    names = [f"tool_{i:03d}" for i in range(300)]
    config = write_config(tmp_path, demo_server("paged", "paged", _policy(*names)))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("paged")
        snapshot = pool.snapshot()
        assert len(snapshot) == 300
        envelope = await pool.call(snapshot, "mcp__paged__tool_299", {"x": 7}, ticket=Ticket.allow("t.*"))
        assert (envelope.code, envelope.text) == ("ok", "tool_299:7")


async def test_the_listing_at_connect_is_bounded_by_the_connect_timeout_not_the_call_timeout(
    tmp_path: Path,
) -> None:
    # The listing takes longer than the call bound (0.1 s, plus the session's 1 s of slack).
    spec = write_spec(tmp_path, pages=[[tool_def("a")]], list_delay_s=1.5)
    config = write_config(tmp_path, scripted_server("s", spec, _policy("a"), call_timeout_s=0.1))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
        assert [tool.name for tool in pool.snapshot()] == ["mcp__s__a"]


async def test_r2_more_pages_than_the_cap_refuse_the_connection(tmp_path: Path) -> None:
    names = [f"tool_{i:03d}" for i in range(300)]
    config = write_config(
        tmp_path, demo_server("paged", "paged", _policy(*names)), pool={"max_list_pages": 3}
    )
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionRefused) as refused:
            await pool.connect("paged")
        assert "within 3 pages" in str(refused.value)


async def test_r2_more_tools_than_the_cap_refuse_the_connection(tmp_path: Path) -> None:
    spec = write_spec(
        tmp_path, pages=[[tool_def(f"t{i}") for i in range(5)], [tool_def("t5")]], cursors=["next"]
    )
    config = write_config(
        tmp_path,
        scripted_server("s", spec, _policy(*(f"t{i}" for i in range(6)))),
        pool={"max_tools_per_server": 5},
    )
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionRefused, match="more than 5 tools"):
            await pool.connect("s")


async def test_r2_a_cursor_that_loops_refuses_the_connection(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, pages=[[tool_def("a")], [tool_def("b")]], cursors=[""], loop_cursor=True)
    config = write_config(tmp_path, scripted_server("s", spec, _policy("a", "b")))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionRefused, match="repeated"):
            await pool.connect("s")


async def test_r3_two_remote_names_mapping_to_one_local_name_refuse_the_connection(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, pages=[[tool_def("lookup.one"), tool_def("lookup_one")]])
    config = write_config(tmp_path, scripted_server("s", spec, _policy("lookup.one", "lookup_one")))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionRefused) as refused:
            await pool.connect("s")
        assert any(r.startswith("R3") and "mcp__s__lookup_one" in r for r in refused.value.reasons)


async def test_r3_a_malformed_or_duplicated_remote_name_refuses_the_connection(tmp_path: Path) -> None:
    bad = "rm -rf /\u202e"
    spec = write_spec(tmp_path, pages=[[tool_def("ok"), tool_def(bad), tool_def("ok")]])
    config = write_config(tmp_path, scripted_server("s", spec, _policy("ok")))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionRefused) as refused:
            await pool.connect("s")
    reasons = refused.value.reasons
    assert any("published 2 times" in r for r in reasons)
    assert any("<invalid name" in r for r in reasons)
    assert not any(bad in r for r in reasons)  # the hostile name itself is never echoed


async def test_r3_local_names_are_prefixed_provider_safe_and_long_ones_get_a_hash(tmp_path: Path) -> None:
    long_name = "x" * 70 + ".v2"
    spec = write_spec(tmp_path, pages=[[tool_def("get.item"), tool_def(long_name)]])
    config = write_config(tmp_path, scripted_server("s", spec, _policy("get.item", long_name)))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
        names = pool.snapshot().names
    assert "mcp__s__get_item" in names
    long_local = next(n for n in names if n != "mcp__s__get_item")
    assert len(long_local) == 64 and long_local.startswith("mcp__s__xxx")


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        (
            {"type": "object", "properties": {"a": {"$ref": "https://evil.example/schema.json"}}},
            "local JSON pointer",
        ),
        ({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}, "points at nothing"),
        ({"type": "object", "properties": {"a": {"type": "strin"}}}, "not a valid 2020-12 schema"),
        ({"type": "object", "properties": {"a": {"$id": "https://evil.example/", "type": "string"}}}, "$id"),
    ],
)
async def test_r4_a_tool_whose_schema_does_not_compile_strictly_refuses_the_connection(
    tmp_path: Path, schema: dict[str, object], problem: str
) -> None:
    spec = write_spec(tmp_path, pages=[[tool_def("good"), tool_def("bad", schema)]])
    config = write_config(tmp_path, scripted_server("s", spec, _policy("good", "bad")))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionRefused) as refused:
            await pool.connect("s")
    assert any(r.startswith("R4: tool 'bad'") and problem in r for r in refused.value.reasons)


async def test_r4_a_tool_list_the_sdk_cannot_parse_fails_the_connection_as_an_upstream_fault(
    tmp_path: Path,
) -> None:
    spec = write_spec(tmp_path, pages=[[tool_def("good"), tool_def("bad", {"type": "array"})]])
    config = write_config(tmp_path, scripted_server("s", spec, _policy("good", "bad")))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(UpstreamProtocolError, match="malformed"):
            await pool.connect("s")
        assert pool.connected == ()


async def test_r4_schemas_too_deep_or_too_large_are_refused(tmp_path: Path) -> None:
    deep: dict[str, object] = {"type": "string"}
    for _ in range(40):
        deep = {"type": "object", "properties": {"a": deep}}
    large = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string", "description": "x" * 100} for i in range(200)},
    }
    spec = write_spec(tmp_path, pages=[[tool_def("deep", deep), tool_def("large", large)]])
    config = write_config(
        tmp_path, scripted_server("s", spec, _policy("deep", "large")), pool={"max_schema_bytes": 8192}
    )
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionRefused) as refused:
            await pool.connect("s")
    reasons = " ".join(refused.value.reasons)
    assert "deeper than 32 levels" in reasons and "larger than 8192 bytes" in reasons


async def test_r4_forbidding_the_tool_with_a_bad_schema_admits_the_rest(tmp_path: Path) -> None:
    bad = {"type": "object", "properties": {"a": {"$ref": "https://evil.example/x"}}}
    spec = write_spec(tmp_path, pages=[[tool_def("good"), tool_def("bad", bad)]])
    tools = {**_policy("good"), "bad": {"action": False}}
    config = write_config(tmp_path, scripted_server("s", spec, tools))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
        assert pool.snapshot().names == ("mcp__s__good",)


async def test_r6_a_forbidden_tool_is_never_exposed_or_callable(tmp_path: Path) -> None:
    tools = {**ALPHA_TOOLS, "process_info": {"action": False}}
    config = write_config(tmp_path, demo_server("demo_alpha", "alpha", tools))
    recorder = EventRecorder()
    async with Pool(config, on_event=recorder) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("demo_alpha")
        snapshot = pool.snapshot()
        assert "mcp__demo_alpha__process_info" not in snapshot
        envelope = await pool.call(snapshot, "mcp__demo_alpha__process_info", {}, ticket=Ticket.allow("*"))
        assert envelope.code == "unknown_tool"
    connected = recorder.of_kind("mcp.connected", "demo_alpha")[0]
    assert connected.detail["forbidden"] == ("process_info",)


async def test_r6_a_forbidden_tool_still_has_to_be_listed_in_the_policy(tmp_path: Path) -> None:
    tools = {k: v for k, v in ALPHA_TOOLS.items() if k != "process_info"}
    tools["echo"] = {"action": False}
    config = write_config(tmp_path, demo_server("demo_alpha", "alpha", tools))
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT), pytest.raises(ConnectionRefused, match="process_info"):
            await pool.connect("demo_alpha")


async def test_descriptions_are_cut_to_the_configured_length_and_marked_untrusted(tmp_path: Path) -> None:
    spec = write_spec(tmp_path, pages=[[tool_def("t", description="A" * 500)]])
    config = write_config(
        tmp_path, scripted_server("s", spec, _policy("t")), pool={"description_max_chars": 100}
    )
    async with Pool(config) as pool:
        with anyio.fail_after(TIMEOUT):
            await pool.connect("s")
        (tool,) = pool.snapshot().tools
    assert len(tool.description) == 100 and tool.description.endswith("\u2026")
    assert tool.untrusted
