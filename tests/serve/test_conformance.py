"""The official MCP conformance suite (npm ``@modelcontextprotocol/conformance``, on Node 22)
against ``toolpool serve --http``, with the server scenarios that fit a gateway.

The suite's CLI cannot send a bearer token, so it talks to a test-only forwarding proxy that
adds one (tests/serve/bearer_proxy.py, which also maps the suite's fixed tool names to
toolpool's ``mcp__conformance__*`` names). Behind the gateway, tests/servers/conformance.py
publishes the tools the suite asks for. README.md ("Conformance") lists which scenarios run and
why the others do not apply.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import EXACT_ENV, READ, server_table, write_config
from tests.servers.conformance import ERROR_TEXT, SIMPLE_TEXT, TOOLS

from .bearer_proxy import bearer_proxy, proxy_url
from .gateway_helpers import TEST_S, new_token, served
from .node_clients import CONFORMANCE, needs_clients, run_node

pytestmark = [pytest.mark.anyio, pytest.mark.thirdparty, needs_clients]

UPSTREAM = Path(__file__).parents[1] / "servers" / "conformance.py"
ALIAS = "conformance"
LOCAL = {tool.name: f"mcp__{ALIAS}__{tool.name}" for tool in TOOLS}

# The server scenarios of @modelcontextprotocol/conformance 0.1.16 that fit a gateway
# (`conformance list --server`); README.md says why each other one does not apply.
SCENARIOS = [
    "server-initialize",
    "ping",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-error",
    "json-schema-2020-12",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
]


def conformance_config(folder: Path) -> Path:
    """A gateway config with one upstream: the conformance demo server, every tool enabled."""
    tools = {tool.name: {"action": f"{ALIAS}.{tool.name}", **READ} for tool in TOOLS}
    upstream = server_table(
        ALIAS, tools, transport="stdio", command="python", args=[str(UPSTREAM)], env=EXACT_ENV
    )
    write_config(folder, upstream)
    return folder / "toolpool.toml"


async def scenario(url: str, name: str, folder: Path) -> list[dict[str, Any]]:
    """Run one scenario against ``url``; its checks as the suite saved them."""
    out = folder / name
    ran = await run_node(CONFORMANCE, "server", "--url", url, "--scenario", name, "-o", str(out), cwd=folder)
    (saved,) = out.glob("**/checks.json")
    checks: list[dict[str, Any]] = json.loads(saved.read_text(encoding="utf-8"))
    failed = [check for check in checks if check["status"] == "FAILURE"]
    assert (ran.returncode == 0) == (not failed), ran.stdout + ran.stderr
    return checks


def failures(checks: list[dict[str, Any]]) -> list[str]:
    return [f"{check['id']}: {check.get('errorMessage')}" for check in checks if check["status"] != "SUCCESS"]


def details(checks: list[dict[str, Any]], check_id: str) -> Any:
    (found,) = [check["details"] for check in checks if check["id"] == check_id]
    return found


async def test_the_gateway_passes_every_conformance_scenario_that_fits_a_gateway(tmp_path: Path) -> None:
    config = conformance_config(tmp_path)
    token = new_token(config, "conformance", "--allow", f"{ALIAS}.*")
    results = {}
    with anyio.fail_after(TEST_S):
        async with (
            served(config, "--http", "127.0.0.1:0") as running,
            bearer_proxy(running.url, token, LOCAL) as proxy,
        ):
            for name in SCENARIOS:
                results[name] = await scenario(proxy_url(proxy), name, tmp_path)
    assert {name: failures(checks) for name, checks in results.items()} == {name: [] for name in SCENARIOS}
    # Each call went through the whole pipeline to the upstream: a refusal (unknown_tool) would
    # satisfy both call scenarios too, since they only look for a text block.
    assert proxy.renamed == ["test_simple_text", "test_error_handling"]
    simple = details(results["tools-call-simple-text"], "tools-call-simple-text")["result"]
    assert simple["_meta"]["toolpool/code"] == "ok"
    assert f"<untrusted-data>\n{SIMPLE_TEXT}\n</untrusted-data>" in simple["content"][0]["text"]
    error = details(results["tools-call-error"], "tools-call-error")["result"]
    assert error["_meta"]["toolpool/code"] == "mcp_remote_error"
    assert ERROR_TEXT not in error["content"][0]["text"]  # upstream error texts are withheld
    # The evil Host was refused by the DNS-rebinding guard (421), not for want of a token (401).
    rebinding = results["dns-rebinding-protection"]
    assert details(rebinding, "localhost-host-rebinding-rejected")["statusCode"] == 421
    assert details(rebinding, "localhost-host-valid-accepted")["statusCode"] == 200


async def test_without_the_proxy_s_token_the_suite_gets_401_from_the_gateway(tmp_path: Path) -> None:
    config = conformance_config(tmp_path)
    with anyio.fail_after(TEST_S):
        async with served(config, "--http", "127.0.0.1:0") as running:
            checks = await scenario(running.url, "tools-list", tmp_path)
    assert [check["status"] for check in checks] == ["FAILURE"]
    assert '{"error": "unauthorized"}' in checks[0]["errorMessage"]
