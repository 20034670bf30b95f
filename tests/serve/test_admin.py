"""The admin REST API over a real store (SQLite file and PostgreSQL), served by uvicorn on a
real port and spoken to over real HTTP.

``serve_admin`` runs the app in a blocking portal's event loop in a background thread — the
same loop a ``Pool`` is entered in, as in the service — on a socket bound before the server
starts, so no test polls for readiness. Events are published on that loop through the portal.
"""

from __future__ import annotations

import functools
import json
import re
import socket
from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import uvicorn
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import given
from hypothesis import strategies as st

from tests.helpers import write_config
from tests.leaky import HARD, leaks, leaks_in_store_files, leaky_table
from tests.store.helpers import imported, read, sql, write
from toolpool import load_config
from toolpool.config import ALIAS_PATTERN, REMOTE_NAME_PATTERN
from toolpool.pool import Pool
from toolpool.serve import EventHub
from toolpool.serve._events import DROPPED
from toolpool.serve._patterns import ALIAS_MAX, ALIAS_PATH, TOOL_MAX, TOOL_PATH
from toolpool.serve.admin import admin_app
from toolpool.store import MODEL, CallRecord, SecretKey, Store, UsageEntry

TOKEN = "admin-7f3c9a1b5d2e4f60"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
EXAMPLE = Path(__file__).parents[2] / "examples" / "toolpool.toml"
_WAIT_S = 10  # every wait on the server; a local answer takes milliseconds
_IMPORT_S = 60  # an import starts a real demo server (Python start-up, the MCP handshake)
_STOP_S = 10  # uvicorn polls its exit flag every 0.1 s, then drains for at most _GRACE_S
_GRACE_S = 2


@dataclass(frozen=True, slots=True)
class Served:
    url: str
    hub: EventHub
    portal: BlockingPortal
    pool: Pool | None

    def client(self, **headers: str) -> httpx.Client:
        return httpx.Client(base_url=self.url, headers={**AUTH, **headers}, timeout=_WAIT_S)

    def on_loop(self, function: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        """Run ``function(*args)`` on the server's loop, bounded."""
        return self.portal.call(_bounded, function, *args)


async def _bounded(function: Callable[..., Awaitable[Any]], *args: Any) -> Any:
    with anyio.fail_after(_WAIT_S):
        return await function(*args)


@contextmanager
def serve_admin(store: Store, *, config: Path | None = None, **options: Any) -> Iterator[Served]:
    """The admin app on a free 127.0.0.1 port (with a ``Pool`` on ``config`` if given)."""
    with start_blocking_portal("asyncio") as portal, ExitStack() as stack:
        pool = None
        if config is not None:
            made = portal.call(functools.partial(Pool, load_config(config), store=store))
            pool = stack.enter_context(portal.wrap_async_context_manager(made))
        hub = EventHub()
        listener = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        app = admin_app(store, admin_token=TOKEN, pool=pool, **{"events": hub, **options})
        server = uvicorn.Server(
            uvicorn.Config(
                app,
                log_config=None,
                log_level="warning",
                access_log=False,
                timeout_graceful_shutdown=_GRACE_S,
            )
        )
        finished = portal.start_task_soon(server.serve, [listener])
        try:
            yield Served(f"http://127.0.0.1:{listener.getsockname()[1]}", hub, portal, pool)
        finally:
            portal.call(hub.close)
            server.should_exit = True
            finished.result(timeout=_STOP_S)


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    opened = Store.open(store_url, key=SecretKey.generate())
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def served(store: Store) -> Iterator[Served]:
    with serve_admin(store) as running:
        yield running


@pytest.fixture
def client(served: Served) -> Iterator[httpx.Client]:
    with served.client() as opened:
        yield opened


def _demo_tools(store: Store) -> None:
    """demo/lookup (read), demo/notes (write), demo/secret (forbidden): imported, disabled."""
    store.tools.record_import(
        "demo", [imported("lookup"), imported("notes"), imported("secret")], actor="ana"
    )
    store.tools.sync_policy(
        "demo", {"lookup": read("demo.lookup"), "notes": write("demo.notes")}, actor="config"
    )


def _tool(client: httpx.Client, alias: str, name: str) -> dict[str, Any]:
    response = client.get(f"/admin/tools/{alias}/{name}")
    assert response.status_code == 200, response.text
    return dict(response.json())


# -- auth ----------------------------------------------------------------------------------


def test_every_route_refuses_a_missing_or_wrong_token_with_401(served: Served) -> None:
    routes = [("GET", "/admin/openapi.json"), ("GET", "/admin/tools"), ("GET", "/admin/audit/verify")]
    routes += [("POST", "/admin/tools/demo/lookup/enable"), ("POST", "/admin/servers/demo/disable")]
    routes += [("GET", "/admin/events"), ("GET", "/admin/usage"), ("GET", "/admin/usage?by=day")]
    wrong = [{}, {"Authorization": "Bearer nope"}, {"Authorization": f"Basic {TOKEN}"}]
    wrong += [{"Authorization": f"Bearer {TOKEN}x"}, {"Authorization": b"Bearer t\xf6ken"}]  # type: ignore[dict-item]
    with httpx.Client(base_url=served.url, timeout=_WAIT_S) as anonymous:
        for method, path in routes:
            for headers in wrong:
                response = anonymous.request(method, path, headers=headers)
                assert response.status_code == 401, (method, path, headers, response.text)
                assert response.json() == {"error": "a valid admin token is required"}
                assert response.headers["www-authenticate"] == "Bearer"
        assert anonymous.get("/admin/health").json() == {"status": "ok"}


def test_every_admin_answer_carries_the_security_headers(store: Store, served: Served) -> None:
    expected = {
        "x-content-type-options": "nosniff",
        "x-frame-options": "DENY",
        "referrer-policy": "no-referrer",
        "cache-control": "no-store",
    }
    with served.client() as client, httpx.Client(base_url=served.url, timeout=_WAIT_S) as anonymous:
        answers = [
            anonymous.get("/admin/health"),  # 200 without a token
            anonymous.get("/admin/tools"),  # 401
            client.get("/admin/tools"),  # 200
            client.get("/admin/tools/demo/nothing"),  # 404
            client.get("/admin/tools/a__b/x"),  # 422
            client.post("/admin/servers/demo_alpha/import"),  # 409: no pool
            client.get("/admin/elsewhere"),  # 404 from the router
        ]
        store.close()
        answers.append(client.get("/admin/tools"))  # 503
    assert [answer.status_code for answer in answers] == [200, 401, 200, 404, 422, 409, 404, 503]
    for answer in answers:
        assert {name: answer.headers.get(name) for name in expected} == expected, answer.url
        policy = answer.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy, answer.url


def test_the_openapi_spec_is_served_with_the_token_and_names_every_route(client: httpx.Client) -> None:
    spec = client.get("/admin/openapi.json").json()
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    assert "/admin/tools/{alias}/{name}/approve-write" in spec["paths"]
    assert "/admin/usage" in spec["paths"]
    assert "/admin/openapi.json" not in spec["paths"]
    assert client.get("/admin/docs").status_code == 404


# -- tools ---------------------------------------------------------------------------------


def test_tools_are_listed_with_their_states(store: Store, client: httpx.Client) -> None:
    _demo_tools(store)
    tools = {tool["name"]: tool for tool in client.get("/admin/tools").json()}
    assert set(tools) == {"lookup", "notes", "secret"}
    lookup = tools["lookup"]
    assert (lookup["alias"], lookup["action"], lookup["effect"], lookup["enabled"]) == (
        "demo",
        "demo.lookup",
        "read",
        False,
    )
    assert (lookup["verdict"], lookup["score"], lookup["reasons"]) == ("pass", 0.0, [])
    assert lookup["current_hash"] == imported("lookup").definition_hash
    assert tools["notes"]["effect"] == "write" and tools["notes"]["write_approval"] is None
    assert tools["secret"]["action"] is None  # not in the configuration: forbidden
    assert client.get("/admin/tools", params={"alias": "other"}).json() == []


def test_a_tool_shows_its_stored_definition_and_pin(store: Store, client: httpx.Client) -> None:
    _demo_tools(store)
    assert _tool(client, "demo", "lookup")["pin"] is None
    tool = imported("lookup")
    store.pins.approve_pin("demo", "lookup", tool.definition, tool.definition_hash, actor="ana")
    detail = _tool(client, "demo", "lookup")
    assert detail["definition"] == dict(tool.definition)
    assert detail["pin"]["hash"] == tool.definition_hash
    assert (detail["pin"]["definition"], detail["pin"]["approved_by"]) == (dict(tool.definition), "ana")


def test_r9_enabling_a_read_tool_enables_it_in_the_store_with_a_new_release(
    store: Store, client: httpx.Client
) -> None:
    _demo_tools(store)
    before = store.releases.current_release().number
    response = client.post("/admin/tools/demo/lookup/enable")
    assert response.status_code == 200, response.text
    assert store.tools.is_enabled("demo", "lookup")
    assert response.json()["release"] == store.releases.current_release().number == before + 1
    assert response.json()["tool"]["enabled"] is True
    assert store.releases.current_release().includes("demo", "lookup")
    assert store.audit.audit_events()[-1].actor == "admin"


def test_r9_enabling_a_write_tool_directly_is_refused_with_409(store: Store, client: httpx.Client) -> None:
    _demo_tools(store)
    response = client.post("/admin/tools/demo/notes/enable")
    assert response.status_code == 409
    assert "needs a write approval" in response.json()["error"]
    assert not store.tools.is_enabled("demo", "notes")
    assert store.audit.audit_events()[-1].action == "tool.enable_refused"
    forbidden = client.post("/admin/tools/demo/secret/approve-write", json={"by": "ana", "reason": "r"})
    assert forbidden.status_code == 409 and "forbidden" in forbidden.json()["error"]


def test_r9_approve_write_records_who_and_why_and_enables_the_tool(store: Store, served: Served) -> None:
    _demo_tools(store)
    with served.client(**{"X-Toolpool-Actor": "ana"}) as client:
        response = client.post(
            "/admin/tools/demo/notes/approve-write", json={"by": "ana", "reason": "ticket 42"}
        )
    assert response.status_code == 200, response.text
    approval = response.json()["tool"]["write_approval"]
    assert (approval["by"], approval["reason"]) == ("ana", "ticket 42") and approval["at"]
    assert store.tools.is_enabled("demo", "notes")
    event = store.audit.audit_events()[-1]
    assert (event.actor, event.action, event.resource) == ("admin:ana", "tool.approve_write", "demo/notes")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"by": "ana"},
        {"by": "", "reason": "r"},
        {"by": " ", "reason": "r"},
        {"by": "a", "reason": "\n"},
        {"by": "\u0085", "reason": "r"},  # white space to Python and Rust, not to ECMAScript's \s
        {"by": "a", "reason": "r", "extra": 1},
    ],
)
def test_approve_write_needs_a_non_empty_who_and_why(store: Store, client: httpx.Client, body: Any) -> None:
    _demo_tools(store)
    response = client.post("/admin/tools/demo/notes/approve-write", json=body)
    assert response.status_code == 422
    assert response.json()["error"].startswith("invalid request: body")
    assert not store.tools.is_enabled("demo", "notes")


def test_disabling_a_tool_makes_gate_3_refuse_it(store: Store, client: httpx.Client) -> None:
    _demo_tools(store)
    store.tools.enable("demo", "lookup", actor="ana")
    response = client.post("/admin/tools/demo/lookup/disable")
    assert response.status_code == 200 and response.json()["tool"]["enabled"] is False
    assert not store.tools.is_enabled("demo", "lookup")


def test_an_unknown_tool_is_404_on_every_tool_route(store: Store, client: httpx.Client) -> None:
    _demo_tools(store)
    assert client.get("/admin/tools/demo/nope").status_code == 404
    for verb in ("enable", "disable"):
        response = client.post(f"/admin/tools/demo/nope/{verb}")
        assert response.status_code == 404
        assert response.json()["error"].startswith("unknown tool demo/nope")
    approve = client.post("/admin/tools/nobody/x/approve-write", json={"by": "a", "reason": "b"})
    assert approve.status_code == 404


def test_names_outside_the_alias_and_tool_rules_are_422(client: httpx.Client) -> None:
    for path in ("/admin/tools/a__b/x", "/admin/tools/_a/x", "/admin/tools/a/b%20c", "/admin/tools/a/..."):
        response = client.get(path)
        assert response.status_code in (404, 422), path
        assert "error" in response.json()
    assert client.get("/admin/tools/a__b/x").status_code == 422
    bad_actor = client.post("/admin/servers/demo/disable", headers={"X-Toolpool-Actor": "ana smith"})
    assert bad_actor.status_code == 422 and "x-toolpool-actor" in bad_actor.json()["error"]


# -- servers and import --------------------------------------------------------------------


def test_disabling_a_server_turns_gate_3_off_for_all_its_tools(store: Store, client: httpx.Client) -> None:
    _demo_tools(store)
    store.tools.enable("demo", "lookup", actor="ana")
    response = client.post("/admin/servers/demo/disable")
    assert response.status_code == 200, response.text
    assert response.json()["server"] == {
        "alias": "demo",
        "enabled": False,
        "tools": 3,
        "enabled_tools": 1,
        "configured": None,
    }
    assert not store.tools.is_enabled("demo", "lookup")
    assert "demo" in store.releases.current_release().content["disabled_servers"]
    assert client.get("/admin/servers").json()[0]["enabled"] is False
    assert client.post("/admin/servers/demo/enable").json()["server"]["enabled"] is True
    assert store.tools.is_enabled("demo", "lookup")


def test_import_without_a_pool_is_409(client: httpx.Client) -> None:
    response = client.post("/admin/servers/demo_alpha/import")
    assert response.status_code == 409 and "no pool" in response.json()["error"]


def test_r9_import_through_the_pool_stores_demo_alphas_tools_disabled_and_pinned(
    tmp_path: Path, store_url: str, store: Store
) -> None:
    text = EXAMPLE.read_text(encoding="utf-8").replace("enabled = true", "enabled = false")
    config = tmp_path / "toolpool.toml"
    config.write_text(text.replace("[pool]\n", f"[pool]\nstore = {json.dumps(store_url)}\n", 1), "utf-8")
    with serve_admin(store, config=config) as running, running.client() as client:
        response = client.post("/admin/servers/demo_alpha/import", timeout=_IMPORT_S)
        states = {state.name: state for state in store.tools.tool_states("demo_alpha")}
        unknown = client.post("/admin/servers/demo_nowhere/import", timeout=_IMPORT_S)
        servers = {server["alias"]: server for server in client.get("/admin/servers").json()}
        enabled = client.post("/admin/tools/demo_alpha/lookup/enable")
    assert response.status_code == 200, response.text
    body = response.json()
    assert {tool["name"] for tool in body["tools"]} == {"lookup", "echo", "process_info"}
    assert all(tool["verdict"] == "pass" for tool in body["tools"]) and body["changed"] == []
    assert set(states) == {"lookup", "echo", "process_info"}
    assert not any(state.enabled for state in states.values())
    assert all(state.approved_hash == state.current_hash is not None for state in states.values())
    assert unknown.status_code == 404 and "unknown alias" in unknown.json()["error"]
    assert servers["demo_alpha"]["configured"] is True and servers["demo_alpha"]["tools"] == 3
    assert enabled.status_code == 200 and store.tools.is_enabled("demo_alpha", "lookup")


def test_a_server_that_writes_its_secret_into_its_definition_shows_it_nowhere_in_the_admin_api(
    tmp_path: Path,
) -> None:
    config = tmp_path / "toolpool.toml"
    write_config(tmp_path, leaky_table(tmp_path))
    with Store.open(f"sqlite:///{tmp_path / 'toolpool.db'}", key=SecretKey.generate()) as store:
        store.secrets.set_secret("api_token", HARD, actor="tests")
        with serve_admin(store, config=config) as running, running.client() as client:
            imported = client.post("/admin/servers/s/import", timeout=_IMPORT_S)
            shown = [
                client.get(path).text for path in ("/admin/tools", "/admin/tools/s/whoami", "/admin/audit")
            ]
    assert imported.status_code == 200, imported.text
    assert "[secret:api_token]" in shown[1]
    assert [leaks(text) for text in (imported.text, *shown)] == [[], [], [], []]
    assert leaks_in_store_files(tmp_path) == {}


# -- releases, audit, calls ----------------------------------------------------------------


def test_releases_are_read_by_number_and_the_current_one(store: Store, client: httpx.Client) -> None:
    _demo_tools(store)
    store.tools.enable("demo", "lookup", actor="ana")
    current = client.get("/admin/releases/current").json()
    assert current["number"] == store.releases.current_release().number
    assert current["change"] == "tool.enable demo/lookup" and current["actor"] == "ana"
    assert current["content"]["tools"]["demo/lookup"]["effect"] == "read"
    first = client.get("/admin/releases/1").json()
    assert (first["number"], first["change"]) == (1, "store.create")
    assert client.get("/admin/releases/999").status_code == 404
    assert client.get("/admin/releases/0").status_code == 422


def test_audit_is_listed_in_pages_and_verified(store: Store, client: httpx.Client) -> None:
    _demo_tools(store)
    every = [event.id for event in store.audit.audit_events()]
    first = client.get("/admin/audit", params={"limit": 2}).json()
    assert [event["id"] for event in first["events"]] == every[:2]
    rest = client.get("/admin/audit", params={"after_id": first["next_after_id"]}).json()
    assert [event["id"] for event in rest["events"]] == every[2:] and rest["next_after_id"] is None
    assert client.get("/admin/audit", params={"limit": 0}).status_code == 422
    verdict = client.get("/admin/audit/verify").json()
    assert verdict["ok"] is True and verdict["checked"] == len(every)


def test_an_audit_row_edited_in_the_database_is_reported_by_verify(
    store: Store, store_url: str, client: httpx.Client
) -> None:
    _demo_tools(store)
    sql(store_url, "UPDATE audit_events SET actor = ? WHERE id = ?", ("mallory", 2))
    verdict = client.get("/admin/audit/verify").json()
    assert (verdict["ok"], verdict["first_bad_id"], verdict["problem"]) == (False, 2, "edited")
    assert "broken at event 2" in verdict["summary"]


def test_the_audit_route_never_shows_a_secret_value(store: Store, client: httpx.Client) -> None:
    store.secrets.set_secret("tickets_token", "s3cr3t-value-123", actor="ana")
    store.audit.audit("ana", "note", "x", {"header": "Bearer s3cr3t-value-123"})
    text = client.get("/admin/audit").text
    assert "s3cr3t-value-123" not in text and "[secret:tickets_token]" in text


def test_call_stats_and_records_after_calls_were_recorded(store: Store, client: httpx.Client) -> None:
    records = [
        CallRecord("s1", "ana", "demo", "lookup", "ok", duration_ms, 10, 200, snapshot_version=3, release=2)
        for duration_ms in (10.0, 20.0, 30.0)
    ]
    records.append(CallRecord("s1", "ana", "demo", "lookup", "denied", 1.0, 10, 0))
    store.calls.record_calls(records)
    [stats] = client.get("/admin/calls/stats").json()
    assert (stats["alias"], stats["tool"], stats["calls"]) == ("demo", "lookup", 4)
    assert stats["codes"] == {"denied": 1, "ok": 3}
    assert stats["p50_ms"] == 15.0
    assert client.get("/admin/calls/stats", params={"since": "2999-01-01T00:00:00Z"}).json() == []
    assert len(client.get("/admin/calls/stats", params={"since": "2000-01-01T01:00:00+01:00"}).json()) == 1
    for since in ("2999-01-01T00:00:00", "855678", "0001-01-01T00:00:00+01:00"):
        assert client.get("/admin/calls/stats", params={"since": since}).status_code == 422, since
    page = client.get("/admin/calls", params={"limit": 3}).json()
    assert [call["duration_ms"] for call in page["calls"]] == [10.0, 20.0, 30.0]
    assert page["calls"][0]["principal"] == "ana" and page["calls"][0]["release"] == 2
    rest = client.get("/admin/calls", params={"after_id": page["next_after_id"]}).json()
    assert [call["code"] for call in rest["calls"]] == ["denied"] and rest["next_after_id"] is None


def test_usage_sums_the_ledger_by_each_key_from_a_day_on(store: Store, client: httpx.Client) -> None:
    day_one = datetime(2026, 3, 14, 12, 0, tzinfo=UTC)
    store.calls.record_calls(
        [
            CallRecord("s1", "ana", "demo", "lookup", "ok", 2.5, 10, 100, at=day_one),
            CallRecord("s1", "ana", "demo", "lookup", "denied", 0.5, 10, 60, at=day_one),
            CallRecord("s2", "bob", "demo", "send", "ok", 1.0, 12, 30, at=day_one + timedelta(days=1)),
        ],
        usage=[
            UsageEntry(
                "ana", "s1", MODEL, "scripted", model_requests=1, input_tokens=70, output_tokens=7, at=day_one
            )
        ],
    )
    ana, bob = client.get("/admin/usage").json()
    assert ana == {
        "key": {"principal": "ana"},
        "calls": 2,
        "errors": 1,
        "codes": {"denied": 1, "ok": 1},
        "wait_ms": 3.0,
        "bytes_in": 20,
        "bytes_out": 160,
        "lists": 0,
        "list_tokens": 0,
        "model_requests": 1,
        "input_tokens": 70,
        "output_tokens": 7,
    }
    assert bob["key"] == {"principal": "bob"} and bob["codes"] == {"ok": 1}
    tools = client.get("/admin/usage", params={"by": "tool"}).json()
    assert [tuple(row["key"].values()) for row in tools] == [
        ("@model", "scripted"),
        ("demo", "lookup"),
        ("demo", "send"),
    ]
    days = client.get("/admin/usage", params={"by": "day", "since": "2026-03-14T20:00:00-08:00"}).json()
    assert [(row["key"], row["calls"]) for row in days] == [({"day": "2026-03-15"}, 1)]
    assert [row["key"] for row in client.get("/admin/usage", params={"by": "session"}).json()] == [
        {"session_id": "s1"},
        {"session_id": "s2"},
    ]
    assert client.get("/admin/usage", params={"by": "alias", "since": "2026-03-16"}).json() == []


@pytest.mark.parametrize(
    "params",
    [
        {"by": "user"},
        {"since": "yesterday"},
        {"since": "2026-03-14T20:00:00"},
        {"since": "2026-02-30"},
        {"bye": "day"},
    ],
)
def test_usage_refuses_a_bad_key_or_day_with_422_and_one_line(
    client: httpx.Client, params: dict[str, str]
) -> None:
    response = client.get("/admin/usage", params=params)
    assert response.status_code == 422, params
    assert (
        response.json()["error"].startswith("invalid request: query/")
        and "\n" not in response.json()["error"]
    )


def test_a_closed_store_answers_503(store: Store, client: httpx.Client) -> None:
    store.close()
    response = client.get("/admin/tools")
    assert response.status_code == 503 and response.json() == {"error": "the store is closed"}


# -- events --------------------------------------------------------------------------------


def _next_event(lines: Iterator[str]) -> tuple[str, dict[str, Any]]:
    """The next event of an SSE stream, skipping comments and blank lines."""
    kind = None
    for line in lines:
        if line.startswith("event: "):
            kind = line.removeprefix("event: ")
        elif line.startswith("data: "):
            assert kind is not None
            return kind, json.loads(line.removeprefix("data: "))
    raise AssertionError("the stream ended")


def _connected(lines: Iterator[str]) -> None:
    assert next(lines) == ": connected"


def test_published_events_reach_a_subscriber_as_server_sent_events(
    served: Served, client: httpx.Client
) -> None:
    with client.stream("GET", "/admin/events") as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        lines = response.iter_lines()
        _connected(lines)
        served.portal.call(served.hub.publish, {"kind": "tool.enable", "tool": "demo/lookup"})
        served.portal.call(served.hub.publish, {"kind": "bad\nkind", "x": "line\nbreak"})
        assert _next_event(lines) == ("tool.enable", {"kind": "tool.enable", "tool": "demo/lookup"})
        assert _next_event(lines) == ("message", {"kind": "bad\nkind", "x": "line\nbreak"})
    served.on_loop(served.hub.wait_subscribers, 0)  # the disconnect unsubscribed it


def test_closing_the_hub_ends_the_stream_cleanly(served: Served, client: httpx.Client) -> None:
    with client.stream("GET", "/admin/events") as response:
        lines = response.iter_lines()
        _connected(lines)
        served.portal.call(served.hub.close)
        assert [line for line in lines if line] == []
    assert served.hub.subscribers == 0


def test_a_quiet_stream_sends_heartbeat_comments(store: Store) -> None:
    with (
        serve_admin(store, heartbeat_s=0.05) as running,
        running.client() as client,
        client.stream("GET", "/admin/events") as response,
    ):
        lines = response.iter_lines()
        _connected(lines)
        assert next(line for line in lines if line) == ": keep-alive"


def test_without_an_event_feed_the_stream_is_409(store: Store) -> None:
    with serve_admin(store, events=None) as running, running.client() as client:
        response = client.get("/admin/events")
    assert response.status_code == 409 and response.json() == {"error": "this service has no event feed"}


@pytest.mark.anyio
async def test_a_slow_subscriber_loses_the_oldest_events_and_is_told_how_many() -> None:
    hub = EventHub(buffer=2)
    async with hub.subscribe() as slow, hub.subscribe() as fast:
        hub.publish({"kind": "a", "n": 0})
        assert await anext(fast) == {"kind": "a", "n": 0}
        for n in range(1, 6):
            hub.publish({"kind": "a", "n": n})
        hub.close()
        received = [event async for event in slow]
    assert received == [{"kind": DROPPED, "count": 4}, {"kind": "a", "n": 4}, {"kind": "a", "n": 5}]
    assert hub.subscribers == 0


# -- the path rules match toolpool's own -----------------------------------------------------

_NAMEISH = st.text(st.sampled_from("aZ09_-.\n "), min_size=0, max_size=60)


@given(_NAMEISH)
def test_the_alias_path_rule_is_the_configs_alias_rule(text: str) -> None:
    ours = re.fullmatch(ALIAS_PATH, text) is not None and len(text) <= ALIAS_MAX
    assert ours == (ALIAS_PATTERN.fullmatch(text) is not None)


@given(_NAMEISH | st.text(st.sampled_from("a."), max_size=140))
def test_the_tool_path_rule_is_r3_except_dot_segments(text: str) -> None:
    ours = re.fullmatch(TOOL_PATH, text) is not None and len(text) <= TOOL_MAX
    assert ours == (REMOTE_NAME_PATTERN.fullmatch(text) is not None and text not in (".", ".."))
