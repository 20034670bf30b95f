"""The MCP Inspector's CLI (npm ``@modelcontextprotocol/inspector``, ``--cli --format json``)
against ``toolpool serve``: over stdio, where the Inspector starts the gateway itself, and over
streamable HTTP with a bearer token from ``toolpool tokens add``. It sees the ticket-filtered
listing, gets a demo tool's text, and gets refusals back as error results with their code."""

from __future__ import annotations

import sys
import tomllib
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.helpers import server_table, write_config

from .gateway_helpers import EXAMPLE, START_S, TEST_S, WAIT_S, new_token, served_sync
from .node_clients import INSPECTOR, Ran, needs_clients, processes_naming, run_node

pytestmark = [pytest.mark.anyio, pytest.mark.thirdparty, needs_clients]

TRANSPORTS = ["stdio", "http"]
ALPHA = ["mcp__demo_alpha__echo", "mcp__demo_alpha__lookup"]
# The gateway's ticket: demo.* everywhere, and over HTTP on resource k1 only.
REFUSALS = {
    "stdio": (
        ["--tool-name", "mcp__demo_alpha__echo", "--tool-args-json", '{"text": 5}'],
        "invalid_arguments",
    ),
    "http": (["--tool-name", "mcp__demo_alpha__lookup", "--tool-arg", "key=k2"], "denied"),
}
EXIT_TOOL_IS_ERROR = 5  # the Inspector's exit code for a result with isError: true


@dataclass(frozen=True)
class Inspector:
    """``await inspect(*args)``: one run of the Inspector CLI against a gateway over ``transport``."""

    transport: str
    run: Callable[..., Awaitable[Ran]]

    async def __call__(self, *args: str) -> Ran:
        return await self.run(*args)


def example_with(folder: Path, *aliases: str) -> Path:
    """examples/toolpool.toml with only the servers ``aliases`` (so fewer start with a gateway)."""
    raw = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    tables = []
    for alias in aliases:
        fields = dict(raw["servers"][alias])
        tables.append(server_table(alias, fields.pop("tools"), **fields))
    write_config(folder, *tables, pool=raw["pool"])
    return folder / "toolpool.toml"


@pytest.fixture(scope="module")
def http_gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """One ``toolpool serve --http`` for this module's HTTP runs (they only read), with a token
    for ``demo.*`` on resource ``k1``: its URL and the token."""
    config = example_with(tmp_path_factory.mktemp("inspector-http"), "demo_alpha", "demo_beta")
    token = new_token(config, "inspector", "--allow", "demo.*", "--resource", "k1")
    with served_sync(config, "--http", "127.0.0.1:0") as url:
        yield url, token


@pytest.fixture(params=TRANSPORTS)
def inspect(request: pytest.FixtureRequest, tmp_path: Path) -> Inspector:
    """``await inspect(*args)`` runs the Inspector CLI once against a gateway on the example's
    alpha and beta servers. Over stdio the Inspector starts ``toolpool serve --stdio --allow
    demo.*`` itself (and must have stopped it when it exits); over HTTP it connects to the
    module's gateway with its token."""
    # A stdio connection includes the gateway's start: the Inspector's default 15 s is too short
    # for a loaded CI machine.
    common = ["--cli", "--format", "json", "--connect-timeout", str(START_S * 1000)]

    async def run(target: list[str], *args: str) -> Ran:
        return await run_node(
            INSPECTOR, *common, *args, "--", *target, cwd=tmp_path, timeout=START_S + WAIT_S
        )

    if request.param == "http":
        url, token = request.getfixturevalue("http_gateway")
        return Inspector(
            "http", lambda *args: run([url], "--header", f"Authorization: Bearer {token}", *args)
        )
    config = example_with(tmp_path, "demo_alpha", "demo_beta")
    serve = [sys.executable, "-m", "toolpool", "serve", "--stdio"]
    gateway = [*serve, "--allow", "demo.*", "--config", str(config)]

    async def over_stdio(*args: str) -> Ran:
        ran = await run(gateway, *args)
        assert processes_naming(str(config)) == [], "the Inspector left the stdio gateway running"
        return ran

    return Inspector("stdio", over_stdio)


def result_of(ran: Ran) -> Any:
    return ran.json()["result"]


def text_of(result: Any) -> str:
    return "".join(block["text"] for block in result["content"] if block["type"] == "text")


async def test_the_inspector_lists_only_the_tools_the_ticket_allows(inspect: Inspector) -> None:
    with anyio.fail_after(TEST_S):
        ran = await inspect("--method", "tools/list")
    assert ran.returncode == 0, ran.stderr
    tools = result_of(ran)["tools"]
    assert [tool["name"] for tool in tools] == ALPHA
    echo = tools[0]
    assert echo["description"] == "Return the given text unchanged."
    assert echo["inputSchema"] == {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    }
    assert "annotations" not in echo  # upstream annotations grant nothing and are not forwarded (R8)


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_the_inspector_calls_a_demo_tool_and_gets_its_text_in_each_era(
    inspect: Inspector, era: str
) -> None:
    with anyio.fail_after(TEST_S):
        ran = await inspect(
            "--protocol-era",
            era,
            "--method",
            "tools/call",
            "--tool-name",
            "mcp__demo_alpha__lookup",
            "--tool-arg",
            "key=k1",
        )
    assert ran.returncode == 0, ran.stderr
    result = result_of(ran)
    assert result["isError"] is False
    assert result["_meta"]["toolpool/code"] == "ok"
    assert "<untrusted-data>\nalpha:v1\n</untrusted-data>" in text_of(result)


async def test_the_inspector_gets_a_refused_call_back_as_an_error_result_with_its_code(
    inspect: Inspector,
) -> None:
    call, code = REFUSALS[inspect.transport]
    with anyio.fail_after(TEST_S):
        ran = await inspect("--method", "tools/call", *call)
    assert ran.returncode == EXIT_TOOL_IS_ERROR, ran.stderr
    result = result_of(ran)
    assert result["isError"] is True
    assert result["_meta"]["toolpool/code"] == code
    assert text_of(result).startswith(f"{code}: ")
    assert ran.stderr_json()["error"]["code"] == "tool_is_error"


async def test_the_inspector_without_a_token_gets_no_session_over_http(
    http_gateway: tuple[str, str], tmp_path: Path
) -> None:
    url, _ = http_gateway
    with anyio.fail_after(TEST_S):
        ran = await run_node(
            INSPECTOR,
            "--cli",
            "--format",
            "json",
            "--stored-auth-only",
            "--method",
            "tools/list",
            "--",
            url,
            cwd=tmp_path,
        )
    assert ran.returncode != 0 and ran.stdout == ""
    assert ran.stderr_json()["error"]["code"] == "auth_required"
