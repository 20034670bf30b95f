"""``toolpool client-config CLIENT [--http URL]``: the snippet an MCP client's config needs.

stdio: the client starts the gateway itself, ``<this python> -m toolpool serve --stdio
--config <absolute path>`` (an absolute interpreter path, because desktop apps start servers
with a bare PATH). HTTP: the client reaches a running ``toolpool serve --http`` at URL with
``Authorization: Bearer <token>`` (a token from ``toolpool tokens add``); the token itself is
never written into the snippet, only the way each client fills it in:

| client | file | stdio | HTTP token |
|---|---|---|---|
| claude-desktop | claude_desktop_config.json, ``mcpServers`` | command/args | through ``mcp-remote`` (its config file starts only local commands): ``env`` placeholder |
| claude-code | .mcp.json, ``mcpServers`` | ``type: stdio`` | ``type: http``, ``${TOOLPOOL_TOKEN}`` from the environment |
| cursor | .cursor/mcp.json, ``mcpServers`` | command/args | ``url``, ``${env:TOOLPOOL_TOKEN}`` |
| vscode | .vscode/mcp.json, ``servers`` | ``type: stdio`` | ``type: http``, ``${input:toolpool-token}`` asked once, stored by VS Code |
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit, urlunsplit

import typer

from toolpool.cli._common import DEFAULT_CONFIG, ConfigPath, app, err, fail, load

__all__ = ["TOKEN_ENV", "Client", "client_config", "http_snippet", "stdio_snippet"]

TOKEN_ENV = "TOOLPOOL_TOKEN"  # noqa: S105 - the name of a variable, not a token
_INPUT_ID = "toolpool-token"
_DESKTOP_AUTH_ENV = "TOOLPOOL_AUTH"
_PLACEHOLDER = "Bearer <token from `toolpool tokens add`>"


class Client(StrEnum):
    claude_desktop = "claude-desktop"
    claude_code = "claude-code"
    cursor = "cursor"
    vscode = "vscode"


_WHERE = {
    Client.claude_desktop: "claude_desktop_config.json (Settings > Developer > Edit Config), then restart Claude",
    Client.claude_code: ".mcp.json in the project (or: claude mcp add-json NAME '<the entry>')",
    Client.cursor: ".cursor/mcp.json in the project, or ~/.cursor/mcp.json for every project",
    Client.vscode: ".vscode/mcp.json in the workspace (MCP: Open User Configuration for every workspace)",
}


def stdio_snippet(client: Client, name: str, config: Path, python: str) -> dict[str, Any]:
    """The config entry that makes ``client`` start ``toolpool serve --stdio`` for ``config``."""
    entry: dict[str, Any] = {
        "command": python,
        "args": ["-m", "toolpool", "serve", "--stdio", "--config", str(config)],
    }
    if client in (Client.claude_code, Client.vscode):
        entry = {"type": "stdio", **entry}
    return _wrap(client, name, entry)


def http_snippet(client: Client, name: str, url: str) -> dict[str, Any]:
    """The config entry that makes ``client`` reach the gateway at ``url`` with a bearer token."""
    if client is Client.claude_desktop:
        args = ["-y", "mcp-remote", url, "--header", f"Authorization:${{{_DESKTOP_AUTH_ENV}}}"]
        if urlsplit(url).scheme == "http" and urlsplit(url).hostname not in ("127.0.0.1", "localhost", "::1"):
            args.append("--allow-http")
        entry: dict[str, Any] = {"command": "npx", "args": args, "env": {_DESKTOP_AUTH_ENV: _PLACEHOLDER}}
        return _wrap(client, name, entry)
    token = {
        Client.claude_code: f"${{{TOKEN_ENV}}}",
        Client.cursor: f"${{env:{TOKEN_ENV}}}",
        Client.vscode: f"${{input:{_INPUT_ID}}}",
    }[client]
    entry = {"url": url, "headers": {"Authorization": f"Bearer {token}"}}
    if client is not Client.cursor:
        entry = {"type": "http", **entry}
    snippet = _wrap(client, name, entry)
    if client is Client.vscode:
        prompt = {"type": "promptString", "id": _INPUT_ID, "description": "toolpool token", "password": True}
        snippet = {"inputs": [prompt], **snippet}
    return snippet


def _wrap(client: Client, name: str, entry: dict[str, Any]) -> dict[str, Any]:
    return {("servers" if client is Client.vscode else "mcpServers"): {name: entry}}


def _gateway_url(text: str) -> str:
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        fail(f"--http {text!r} is not an http:// or https:// URL")
    path = parts.path if parts.path not in ("", "/") else "/mcp"  # where `serve --http` answers
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def _token_hint(client: Client) -> str:
    return {
        Client.claude_desktop: f"replace the {_DESKTOP_AUTH_ENV} value's placeholder with the token",
        Client.claude_code: f"export {TOKEN_ENV}=<token> where Claude Code starts",
        Client.cursor: f"export {TOKEN_ENV}=<token> where Cursor starts",
        Client.vscode: "VS Code asks for the token once and keeps it",
    }[client]


@app.command("client-config")
def client_config(
    client: Annotated[Client, typer.Argument(help="The MCP client to set up.")],
    http: Annotated[
        str | None,
        typer.Option(
            "--http",
            metavar="URL",
            help="Reach a running `toolpool serve --http` at URL (e.g. http://127.0.0.1:8765/mcp) "
            "instead of starting the gateway on stdio.",
        ),
    ] = None,
    name: Annotated[str, typer.Option("--name", help="The server's name in the client.")] = "toolpool",
    config: ConfigPath = DEFAULT_CONFIG,
) -> None:
    """Print the JSON an MCP client's config needs for toolpool (stdio by default), and on stderr
    where it goes."""
    if http is None:
        loaded = load(config)  # the snippet must name a config that loads
        snippet = stdio_snippet(client, name, loaded.source.resolve(), sys.executable)
    else:
        snippet = http_snippet(client, name, _gateway_url(http))
    sys.stdout.write(json.dumps(snippet, indent=2) + "\n")
    err.print(f"add to {_WHERE[client]}", highlight=False, soft_wrap=True)
    if http is not None:
        err.print(
            f"the token: `toolpool tokens add NAME --allow GLOB` prints one; {_token_hint(client)}",
            highlight=False,
            soft_wrap=True,
        )
