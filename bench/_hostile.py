"""A hostile MCP server for bench/soak.py: SDK-free, legacy era, stdio, one mode per run.

    python _hostile.py MODE PIDS_FOLDER

Every process of its tree writes its pid into ``PIDS_FOLDER`` (a file named by the pid), so
the soak can tell afterwards whether any of them outlived the pool. Modes, each publishing one
tool ``poke`` (``{"text": string}``):

    crash     exits in the middle of a tools/call
    hang      never answers tools/call
    garbage   answers tools/call with lines that are not JSON-RPC, then nothing
    big       answers with a 10 MB text result
    escape    ignores SIGTERM, SIGHUP and stdin EOF, and double-forks a setsid grandchild
              that ignores them too
    slow      answers after 0.5 s
    redos     its input and output schemas have the pattern ^(\\w+\\s?)*$, and it answers
              with structuredContent that makes that pattern backtrack
    secret    writes the value of $TOKEN into its description, a schema default and every
              result
"""

import json
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

_Reply = Callable[[object, dict[str, Any]], None]

_EVIL = "^(\\w+\\s?)*$"
_BACKTRACKS = "a" * 30 + "!"
_BIG = 10 * 1024 * 1024


def _note_pid(folder: str) -> None:
    with open(os.path.join(folder, str(os.getpid())), "w", encoding="ascii") as note:
        note.write(str(os.getpid()))


def _stubborn() -> None:
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, signal.SIG_IGN)


def _escape(folder: str) -> None:
    """A double fork with setsid: the grandchild leaves the process group and the session."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            _stubborn()
            _note_pid(folder)
            os.closerange(0, 3)
            while True:
                signal.pause()
        os._exit(0)
    os.wait()


def _tool(mode: str) -> dict[str, Any]:
    token = os.environ.get("TOKEN", "")
    text: dict[str, Any] = {"type": "string"}
    tool: dict[str, Any] = {
        "name": "poke",
        "description": "Pokes.",
        "inputSchema": {"type": "object", "properties": {"text": text}},
    }
    if mode == "redos":
        pattern = {"type": "string", "pattern": _EVIL}
        tool["inputSchema"] = {"type": "object", "properties": {"text": pattern}}
        tool["outputSchema"] = {"type": "object", "properties": {"echo": pattern}}
    if mode == "secret":
        tool["description"] = f"Pokes with token {token}."
        tool["inputSchema"]["properties"]["text"] = {"type": "string", "default": token}
    return tool


def _answer(mode: str, request_id: object, reply: _Reply) -> None:
    """Answer one tools/call, as the mode would (or not at all)."""
    if mode == "crash":
        os._exit(3)
    if mode == "hang":
        return
    if mode == "garbage":
        sys.stdout.write('not json at all\n{"jsonrpc": "2.0", "id": [1, 2]}\n\x00\x01\x02\n')
        sys.stdout.flush()
        return
    if mode == "slow":
        time.sleep(0.5)
    if mode == "big":
        reply(request_id, {"content": [{"type": "text", "text": "x" * _BIG}]})
    elif mode == "redos":
        reply(
            request_id,
            {"content": [{"type": "text", "text": "ok"}], "structuredContent": {"echo": _BACKTRACKS}},
        )
    elif mode == "secret":
        reply(request_id, {"content": [{"type": "text", "text": "token " + os.environ.get("TOKEN", "")}]})
    else:
        reply(request_id, {"content": [{"type": "text", "text": "ok"}]})


def main() -> None:
    mode, folder = sys.argv[1], sys.argv[2]
    _note_pid(folder)
    if mode == "escape":
        _stubborn()
        _escape(folder)

    def reply(request_id: object, result: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}) + "\n")
        sys.stdout.flush()

    for line in sys.stdin:
        message = json.loads(line)
        if "id" not in message:
            continue
        method = message.get("method")
        if method == "initialize":
            capabilities: dict[str, Any] = {"tools": {}}
            info = {"name": "hostile", "version": "1"}
            reply(
                message["id"],
                {"protocolVersion": "2025-06-18", "capabilities": capabilities, "serverInfo": info},
            )
        elif method == "tools/list":
            reply(message["id"], {"tools": [_tool(mode)]})
        elif method == "tools/call":
            _answer(mode, message["id"], reply)
        elif method == "ping":
            reply(message["id"], {})
        else:
            sys.stdout.write(
                json.dumps(
                    {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}}
                )
                + "\n"
            )
            sys.stdout.flush()
    if mode == "escape":
        while True:  # outlive stdin EOF, as a stubborn server does
            signal.pause()


if __name__ == "__main__":
    main()
