"""``toolpool client-config``: the exact JSON each MCP client expects, and a stdio command that
really starts a working gateway."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from .gateway_helpers import TEST_S, WAIT_S, copy_config, environment, names, text_of, toolpool

CLIENTS = ("claude-desktop", "claude-code", "cursor", "vscode")
URL = "http://127.0.0.1:8765/mcp"


def snippet(config: Path, *args: str) -> dict[str, object]:
    made = toolpool(config, "client-config", *args)
    assert made.returncode == 0, made.stderr
    parsed: dict[str, object] = json.loads(made.stdout)
    return parsed


def stdio_command(config: Path) -> list[str]:
    return [sys.executable, "-m", "toolpool", "serve", "--stdio", "--config", str(config.resolve())]


def test_each_client_gets_its_own_stdio_shape_naming_the_absolute_config(tmp_path: Path) -> None:
    config = copy_config(tmp_path)
    command, *args = stdio_command(config)
    plain = {"command": command, "args": args}
    typed = {"type": "stdio", **plain}
    assert snippet(config, "claude-desktop") == {"mcpServers": {"toolpool": plain}}
    assert snippet(config, "claude-code") == {"mcpServers": {"toolpool": typed}}
    assert snippet(config, "cursor") == {"mcpServers": {"toolpool": plain}}
    assert snippet(config, "vscode", "--name", "pool") == {"servers": {"pool": typed}}


def test_each_client_gets_the_url_with_a_bearer_header_and_no_token(tmp_path: Path) -> None:
    config = copy_config(tmp_path)
    assert snippet(config, "claude-code", "--http", URL) == {
        "mcpServers": {
            "toolpool": {"type": "http", "url": URL, "headers": {"Authorization": "Bearer ${TOOLPOOL_TOKEN}"}}
        }
    }
    assert snippet(config, "cursor", "--http", "http://127.0.0.1:8765") == {
        "mcpServers": {"toolpool": {"url": URL, "headers": {"Authorization": "Bearer ${env:TOOLPOOL_TOKEN}"}}}
    }
    assert snippet(config, "vscode", "--http", URL) == {
        "inputs": [
            {
                "type": "promptString",
                "id": "toolpool-token",
                "description": "toolpool token",
                "password": True,
            }
        ],
        "servers": {
            "toolpool": {
                "type": "http",
                "url": URL,
                "headers": {"Authorization": "Bearer ${input:toolpool-token}"},
            }
        },
    }
    desktop = snippet(config, "claude-desktop", "--http", URL)
    assert desktop == {
        "mcpServers": {
            "toolpool": {
                "command": "npx",
                "args": ["-y", "mcp-remote", URL, "--header", "Authorization:${TOOLPOOL_AUTH}"],
                "env": {"TOOLPOOL_AUTH": "Bearer <token from `toolpool tokens add`>"},
            }
        }
    }


def test_the_http_snippet_says_where_it_goes_and_how_to_get_a_token(tmp_path: Path) -> None:
    made = toolpool(copy_config(tmp_path), "client-config", "cursor", "--http", URL)
    assert "~/.cursor/mcp.json" in made.stderr and "toolpool tokens add" in made.stderr


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("client-config", "cursor", "--http", "ftp://127.0.0.1/mcp"), "is not an http:// or https:// URL"),
        (("client-config", "zed"), "'zed' is not one of 'claude-desktop', 'claude-code', 'cursor', 'vscode'"),
    ],
)
def test_a_bad_client_or_url_is_one_line(tmp_path: Path, args: tuple[str, ...], fragment: str) -> None:
    made = toolpool(copy_config(tmp_path), *args)
    lines = made.stderr.strip().splitlines()
    assert made.returncode != 0 and len(lines) == 1 and fragment in lines[0], made.stderr


def test_a_stdio_snippet_needs_a_config_that_exists(tmp_path: Path) -> None:
    made = toolpool(tmp_path / "missing.toml", "client-config", "claude-code")
    assert made.returncode == 1 and "toolpool init" in made.stderr and made.stdout == ""


@pytest.mark.anyio
async def test_the_stdio_command_a_snippet_names_starts_a_working_gateway(tmp_path: Path) -> None:
    config = copy_config(tmp_path, ["demo_alpha"])
    entries = [next(iter(next(iter(snippet(config, c).values())).values())) for c in CLIENTS]  # type: ignore[attr-defined]
    commands = {(entry["command"], tuple(entry["args"])) for entry in entries}
    assert len(commands) == 1  # every client starts the very same gateway
    ((command, args),) = commands
    # As a desktop app would: from another folder, with the snippet's command and nothing else.
    params = StdioServerParameters(command=command, args=list(args), env=environment(), cwd=tmp_path.parent)
    with anyio.fail_after(TEST_S):
        async with Client(params, mode="legacy", read_timeout_seconds=WAIT_S) as client:
            listed = names(await client.list_tools())
            called = await client.call_tool("mcp__demo_alpha__lookup", {"key": "k1"})
    assert "mcp__demo_alpha__lookup" in listed
    assert not called.is_error and "alpha:v1" in text_of(called)
