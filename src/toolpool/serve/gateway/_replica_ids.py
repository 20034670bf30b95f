"""Legacy session ids that say which replica holds the session, for a load balancer to route by.

A legacy streamable-HTTP session lives in the one process whose SDK server opened it, so
every request that names it (``Mcp-Session-Id``) must reach that process. The SDK makes
the ids (random hex) and a proxy cannot tell from one where it belongs, so a gateway started
with a replica name hands them out as ``<replica>.<id>`` and takes the prefix off again on the
way in; nginx routes on the prefix (``deploy/nginx.conf``). An id with another replica's
prefix, or none, names no session here: it reaches the SDK as an id it never made, which
answers 404 "Session not found" — what the MCP specification tells a client to answer with
a fresh ``initialize``. That is what a client of a replica that died sees.

Every answer also names the replica that gave it (``X-Toolpool-Replica``), for operators
reading a proxy's log, and for the deployment test, which checks each replica's records.
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolpool.errors import UsageError

__all__ = ["REPLICA_HEADER", "REPLICA_NAME", "ReplicaSessionIds", "check_replica_name"]

REPLICA_NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_HEADER = b"mcp-session-id"
REPLICA_HEADER = "x-toolpool-replica"
_REPLICA = REPLICA_HEADER.encode("ascii")
# What a foreign id becomes: no id the SDK makes contains a character outside hex digits.
_FOREIGN = b"not-this-replica:"


def check_replica_name(name: str) -> str:
    """``name`` if it can prefix session ids and label call records.

    Raises:
        UsageError: it is empty, longer than 32 characters, or has characters other than
            letters, digits, ``-`` and ``_``.
    """
    if not REPLICA_NAME.match(name):
        raise UsageError(f"not a replica name: {name!r} (1-32 letters, digits, '-' or '_')")
    return name


class ReplicaSessionIds:
    """ASGI middleware: ``<replica>.`` before every session id going out, and off every id
    coming in (see the module)."""

    def __init__(self, app: ASGIApp, replica: str) -> None:
        self._app = app
        self._name = check_replica_name(replica).encode("ascii")
        self._prefix = self._name + b"."

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        headers = scope.get("headers", ())
        if any(name == _HEADER for name, _ in headers):
            scope = {**scope, "headers": [(name, self._inward(name, value)) for name, value in headers]}

        async def outward(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {
                    **message,
                    "headers": [
                        *(
                            (name, self._prefix + value if name.lower() == _HEADER else value)
                            for name, value in message.get("headers", ())
                        ),
                        (_REPLICA, self._name),
                    ],
                }
            await send(message)

        await self._app(scope, receive, outward)

    def _inward(self, name: bytes, value: bytes) -> bytes:
        if name != _HEADER:
            return value
        if value.startswith(self._prefix):
            return value[len(self._prefix) :]
        return _FOREIGN + value
