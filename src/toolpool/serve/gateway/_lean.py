"""The lean front: ``tools/call``, ``tools/list`` and ``ping`` answered without the SDK's server.

The SDK's server decodes every message into pydantic models, validates it, dispatches it
through its runner and middleware chain, and re-validates and re-encodes the result: about
as much CPU per call as everything toolpool does (bench/RESULTS §7). The three methods a
client sends over and over are answered here instead, on the same view and the same gates,
from plain JSON values; everything else -- the handshake, both eras' negotiation, sessions,
``subscriptions/listen``, errors of any kind -- stays with the SDK's server.

The rule that keeps the two paths from ever answering differently: the lean front takes a
message only when it is *sure* the SDK would accept it, and hands everything else to the
SDK unchanged. It is sure when

- the text parses with the same parser the SDK uses (``pydantic_core.from_json``: jiter, with
  its number, string and depth rules) into exactly ``{jsonrpc, id, method, params}`` with a
  string or integer id;
- the connection's era is settled: a handshake connection whose ``initialize`` the SDK
  answered with a result (the negotiated version is read from that answer), or a 2026-07-28
  connection whose request carries an envelope the SDK's own ladder accepts;
- the params pass the SDK's own per-version surface validation (``validate_client_request``),
  with no field the lean front does not serve (a ``task``, a ``cursor``).

Results are the same values the SDK would send: ``tools/list`` bodies are built by the SDK's
serializer once per snapshot and era and then reused; ``tools/call`` results are built as plain
dicts (``wire_result_body``), which a test compares with the SDK's serialization. A call the
peer cancels gets no answer; a call cut short by shutdown gets the SDK's "Connection closed".
With telemetry on, every request takes the SDK path (its spans are built there).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeGuard

import anyio
import pydantic_core
from mcp.server.caching import apply_cache_hint
from mcp.server.lowlevel import Server
from mcp.server.runner import modern_error_data
from mcp.shared.inbound import InboundModernRoute, classify_inbound_request
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp_types import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    PROTOCOL_VERSION_META_KEY,
    SERVER_INFO_META_KEY,
    ErrorData,
)
from mcp_types import methods as surfaces
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from toolpool.registry import Snapshot
from toolpool.serve.gateway._clients import ClientView
from toolpool.serve.gateway._gateway import Gateway
from toolpool.serve.gateway._wire import wire_result_body, wire_tools

__all__ = ["HOT_METHODS", "Dumps", "Era", "HotRequest", "LeanAnswers", "LeanFront"]

HOT_METHODS = frozenset({"tools/call", "tools/list", "ping"})
_ENVELOPE_KEYS = frozenset({"jsonrpc", "id", "method", "params"})
# The params each hot method may carry on the lean path; anything else goes to the SDK.
_SERVED_PARAMS = {"tools/call": frozenset({"name", "arguments", "_meta"}), "tools/list": frozenset({"_meta"})}
_SERVED_PARAMS["ping"] = _SERVED_PARAMS["tools/list"]
# Cheap look at the raw text before parsing: a line naming no hot method is not parsed twice.
_MARKERS = ('"tools/call"', '"tools/list"', '"ping"')

# How long a call cut short by shutdown may take to write its "Connection closed".
_CLOSING_WRITE_S = 1.0

Write = Callable[[bytes], Awaitable[None]]
Dumps = Callable[[Any], bytes]


class HotRequest:
    """A request the lean front serves: its id, method, params and the protocol version in force."""

    __slots__ = ("id", "method", "params", "version")

    def __init__(self, request_id: int | str, method: str, params: Mapping[str, Any], version: str) -> None:
        self.id = request_id
        self.method = method
        self.params = params
        self.version = version


class Era:
    """What the lean front knows of one connection's protocol era, learnt from its traffic:
    the first request decides (as in the SDK), and a handshake connection serves only once
    the SDK answered its ``initialize`` with a result."""

    def __init__(self) -> None:
        self._decided = False
        self.modern = False
        self.version: str | None = None  # the negotiated handshake version, once accepted
        self._initializing: set[int | str] = set()

    def inbound(self, message: Mapping[str, Any]) -> None:
        """A request or notification on its way to the SDK."""
        method, request_id = message.get("method"), message.get("id")
        if not isinstance(method, str) or not _usable_id(request_id):
            return
        if method == "initialize":
            self.version = None  # settled again by its answer
            self._initializing.add(request_id)
        if not self._decided:
            self._decided = True
            self.modern = method != "initialize" and _has_envelope(message.get("params"))

    def outbound(self, request_id: object, result: object) -> None:
        """An answer the SDK sent; the answer to ``initialize`` settles a handshake connection."""
        if not _usable_id(request_id) or request_id not in self._initializing:
            return
        self._initializing.discard(request_id)
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        if isinstance(version, str) and version not in MODERN_PROTOCOL_VERSIONS:
            self.version = version

    def serving(self, params: Mapping[str, Any]) -> str | None:
        """The protocol version a hot request with ``params`` is served at, or None: the SDK's."""
        if not self._decided:
            return None
        if self.modern:
            route = classify_inbound_request({"params": params})
            return route.protocol_version if isinstance(route, InboundModernRoute) else None
        if self.version is None or self._initializing or _has_envelope(params):
            return None
        return self.version


class LeanAnswers:
    """The answers to hot requests of one client view, encoded by ``dumps`` (each transport
    encodes as the SDK does on it)."""

    def __init__(self, gateway: Gateway, server: Server[Any], view: ClientView, dumps: Dumps) -> None:
        self._gateway = gateway
        self._server = server
        self.view = view
        self._dumps = dumps
        self._listed: tuple[Snapshot, str, bytes] | None = None

    def hot(self, message: object, version: str | None) -> HotRequest | None:
        """``message`` as a hot request served at ``version``, if the lean front may serve it."""
        if (
            version is None
            or not isinstance(message, dict)
            or message.keys() - _ENVELOPE_KEYS
            or message.get("jsonrpc") != "2.0"
        ):
            return None
        method, request_id, params = message.get("method"), message.get("id"), message.get("params", {})
        if method not in HOT_METHODS or not _usable_id(request_id) or not isinstance(params, dict):
            return None
        if params.keys() - _SERVED_PARAMS[method]:
            return None
        if method == "tools/list" and not self.view.knows_peer(version):
            return None
        try:
            surfaces.validate_client_request(method, version, params)
        except (KeyError, ValueError, ValidationError):
            return None
        return HotRequest(request_id, method, params, version)

    async def respond(self, request: HotRequest) -> tuple[bytes, int]:
        """The JSON-RPC answer to ``request`` and its error code (0: a result)."""
        self._gateway.revive()
        if request.method == "ping":
            return self._result(request, self._finish(request.version, {})), 0
        if request.method == "tools/list":
            return self._framed(request.id, b'"result":' + self._list_body(request.version)), 0
        try:
            envelope = await self.view.call_envelope(request.params["name"], request.params.get("arguments"))
        except Exception as exc:  # as the SDK answers a handler's exception
            error = _error_of(exc, request.version)
            return self.error(request.id, error), error.code
        return self._result(request, self._finish(request.version, wire_result_body(envelope))), 0

    def error(self, request_id: int | str, error: ErrorData) -> bytes:
        body = self._dumps(error.model_dump(by_alias=True, mode="json", exclude_none=True))
        return self._framed(request_id, b'"error":' + body)

    def _result(self, request: HotRequest, result: dict[str, Any]) -> bytes:
        try:
            return self._framed(request.id, b'"result":' + self._dumps(result))
        except (ValueError, pydantic_core.PydanticSerializationError):  # a lone surrogate, say
            unencodable = ErrorData(code=INTERNAL_ERROR, message="the answer could not be encoded as JSON")
            return self.error(request.id, unencodable)

    def _framed(self, request_id: int | str, member: bytes) -> bytes:
        return b'{"jsonrpc":"2.0","id":' + self._dumps(request_id) + b"," + member + b"}"

    def _finish(self, version: str, result: dict[str, Any]) -> dict[str, Any]:
        """The era's stamp on a result, as the SDK's runner adds it."""
        if version in MODERN_PROTOCOL_VERSIONS:
            result.setdefault("resultType", "complete")
            result["_meta"] = {
                **result.get("_meta", {}),
                SERVER_INFO_META_KEY: self._server.server_info_stamp,
            }
        return result

    def _list_body(self, version: str) -> bytes:
        """The ``tools/list`` result: what the view lists now, serialized by the SDK once per
        snapshot and era."""
        snapshot = self.view.listing()
        cached = self._listed
        if cached is not None and cached[0] is snapshot and cached[1] == version:
            return cached[2]
        result = wire_tools(snapshot)
        hint = self._server.cache_hints.get("tools/list")
        hinted = apply_cache_hint(result, hint) if hint is not None else result
        dumped = hinted.model_dump(by_alias=True, mode="json", exclude_none=True)
        body = self._dumps(
            self._finish(version, surfaces.serialize_server_result("tools/list", version, dumped))
        )
        self._listed = (snapshot, version, body)
        return body


class LeanFront:
    """The lean front of a stdio connection: ``take`` says whether a line is a hot request it
    serves; ``answer`` serves one and writes its line."""

    def __init__(self, gateway: Gateway, server: Server[Any], view: ClientView) -> None:
        self._telemetry = gateway.pool.telemetry
        self.era = Era()
        self._answers = LeanAnswers(gateway, server, view, pydantic_core.to_json)
        self._in_flight: dict[int | str, anyio.CancelScope] = {}

    def take(self, line: str) -> HotRequest | None:
        """The hot request ``line`` holds, if the lean front may serve it; None: the SDK's."""
        if self._telemetry.active or not any(marker in line for marker in _MARKERS):
            return None
        try:
            message = pydantic_core.from_json(line)  # the SDK's own parser (jiter), its rules
        except ValueError:
            return None
        params = message.get("params", {}) if isinstance(message, dict) else None
        return self._answers.hot(message, self.era.serving(params) if isinstance(params, dict) else None)

    def cancel(self, request_id: object) -> None:
        """``notifications/cancelled`` named ``request_id``: stop that call, unanswered."""
        if _usable_id(request_id):
            scope = self._in_flight.get(request_id)
            if scope is not None:
                scope.cancel()

    async def answer(self, request: HotRequest, write: Write) -> None:
        """Serve ``request`` and write its one answer line (none when the peer cancelled it; the
        SDK's "Connection closed" when shutdown cuts it short)."""
        scope = anyio.CancelScope()
        self._in_flight[request.id] = scope
        answered = False
        try:
            with scope:
                body, _code = await self._answers.respond(request)
            if scope.cancel_called:
                return  # the peer cancelled it: never answered
            answered = True
            await write(body + b"\n")
        except anyio.get_cancelled_exc_class():
            if not answered:
                closed = self._answers.error(
                    request.id, ErrorData(code=CONNECTION_CLOSED, message="Connection closed")
                )
                with anyio.move_on_after(_CLOSING_WRITE_S, shield=True), contextlib.suppress(Exception):
                    await write(closed + b"\n")
            raise
        finally:
            if self._in_flight.get(request.id) is scope:
                del self._in_flight[request.id]


def _usable_id(value: object) -> TypeGuard[int | str]:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _has_envelope(params: object) -> bool:
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and PROTOCOL_VERSION_META_KEY in meta


def _error_of(exc: Exception, version: str) -> ErrorData:
    if version in MODERN_PROTOCOL_VERSIONS:
        return modern_error_data(exc)
    mapped = handler_exception_to_error_data(exc)
    return mapped if mapped is not None else ErrorData(code=0, message=str(exc))
