"""Hypothesis strategies for what a hostile MCP client sends the gateway's front: JSON-RPC
messages valid and not (truncated, nested past any reader's limit, huge, wrong types, lone
surrogates, ids of every JSON type, batches, notifications, raw garbage), each with what it
must get back.

A strategy draws a ``Message``; ``render`` turns it into the bytes of one line (stdio) or one
body (HTTP) under a request id unique to the run, and says what must come back:

- ``answer``: exactly one response, under that id;
- ``either``: exactly one response, under that id or (the id could not be read) null;
- ``null``: exactly one response, with id null (no usable id: absent, null, a fraction, a
  boolean, an array, an object, a lone surrogate; a batch; garbage);
- ``none``: nothing (a valid notification, or the client's own response to a request).

Expectations follow from how a message was built, never from the code under test: a message
is readable when it holds no lone surrogate and nests at most ``SHALLOW`` levels (the SDK's
reader refuses about 200), and well-formed when ``jsonrpc`` is "2.0", ``method`` a string
and ``params`` absent, null or an object.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from hypothesis import strategies as st

from tests.strategies import json_values

__all__ = ["Message", "Rendered", "messages", "render"]

Expect = Literal["answer", "either", "null", "none"]
IdKind = Literal[
    "int", "negative", "big", "string", "surrogate", "null", "fraction", "bool", "list", "object"
]
USABLE: frozenset[str] = frozenset({"int", "negative", "big", "string"})
SHALLOW = 40
DEEP = (300, 5_000, 100_000)
HUGE = 300_000  # bytes of one argument: over gate 5's 256 KiB, under the HTTP body limit (4 MiB)
TOOLS = ("mcp__demo_alpha__lookup", "mcp__demo_alpha__echo", "mcp__demo_alpha__process_info")
_ABSENT: Any = object()
_DEEP_MARK = "@@deep@@"


@dataclass(frozen=True)
class Message:
    """One message as built; ``render`` gives it its id and its bytes."""

    kind: Literal["request", "notification", "response", "batch", "garbage"]
    method: object = _ABSENT
    params: object = _ABSENT
    jsonrpc: object = "2.0"
    id_kind: IdKind | None = None
    id_text: str = ""
    taint: Literal["", "surrogate", "deep", "huge"] = ""
    depth: int = 0
    cut: float | None = None
    raw: bytes = b""
    batch: tuple[Message, ...] = field(default=())


@dataclass(frozen=True)
class Rendered:
    line: bytes
    id: object
    expect: Expect


def render(message: Message, serial: int) -> Rendered:
    """The bytes of ``message`` (no newline) under ids made unique by ``serial``."""
    if message.kind == "garbage":
        return Rendered(message.raw, None, "null")
    if message.kind == "batch":
        items = [_text(item, serial * 10 + index)[0] for index, item in enumerate(message.batch)]
        return Rendered(("[" + ",".join(items) + "]").encode(), None, "null")
    text, request_id = _text(message, serial)
    usable = message.id_kind in USABLE
    if message.kind == "response":
        return Rendered(text.encode(), request_id, "none")
    if message.cut is not None:
        text = text[: max(1, min(len(text) - 1, int(len(text) * message.cut)))]
        return Rendered(text.encode(), request_id, "either" if usable else "null")
    readable = message.taint not in ("surrogate", "deep") and message.id_kind != "surrogate"
    well_formed = (
        message.jsonrpc == "2.0"
        and isinstance(message.method, str)
        and (message.params is _ABSENT or message.params is None or isinstance(message.params, dict))
    )
    if usable:
        expect: Expect = "answer"
    elif message.id_kind is None and readable and well_formed:
        expect = "none"
    else:
        expect = "null"
    return Rendered(text.encode(), request_id, expect)


def _text(message: Message, serial: int) -> tuple[str, object]:
    body: dict[str, Any] = {"jsonrpc": message.jsonrpc}
    request_id = _id(message.id_kind, message.id_text, serial)
    if message.id_kind is not None:
        body["id"] = request_id
    if message.method is not _ABSENT:
        body["method"] = message.method
    if message.kind == "response":
        body["result"] = {}
    params = message.params
    if message.taint == "surrogate":
        params = {"name": TOOLS[1], "arguments": {"text": "lone \ud800 surrogate"}}
    elif message.taint == "deep":
        params = {"name": TOOLS[1], "arguments": {"text": _DEEP_MARK}}
    elif message.taint == "huge":
        params = {"name": TOOLS[1], "arguments": {"text": "x" * HUGE}}
    if params is not _ABSENT:
        body["params"] = params
    text = json.dumps(body)  # ensure_ascii: a lone surrogate is written as its \u escape
    if message.taint == "deep":
        nested = '{"a":' * message.depth + "1" + "}" * message.depth
        text = text.replace(json.dumps(_DEEP_MARK), nested)
    return text, request_id


def _id(kind: IdKind | None, text: str, serial: int) -> object:
    return {
        None: None,
        "int": serial,
        "negative": -serial,
        "big": 10**30 + serial,
        "string": f"r{serial}:{text}",
        "surrogate": f"r{serial}\udc80",
        "null": None,
        "fraction": serial + 0.5,
        "bool": serial % 2 == 0,
        "list": [serial],
        "object": {"id": serial},
    }[kind]


_usable_ids = st.sampled_from(sorted(USABLE))
_all_ids = st.sampled_from(
    ["int", "negative", "big", "string", "surrogate", "null", "fraction", "bool", "list", "object"]
)
_methods = st.sampled_from(["ping", "tools/list", "tools/call", "resources/list", "prompts/list"]) | st.text(
    max_size=16
)
_call_params = st.fixed_dictionaries(
    {"name": st.sampled_from(TOOLS) | st.text(max_size=12)}, optional={"arguments": json_values}
)
_params = st.one_of(
    st.just(_ABSENT),
    st.none(),
    _call_params,
    st.dictionaries(st.text(max_size=8), json_values, max_size=3),
    st.integers() | st.text(max_size=8) | st.booleans() | st.lists(json_values, max_size=3),  # not an object
)
_requests = st.builds(
    Message,
    kind=st.just("request"),
    method=_methods | st.just(_ABSENT) | json_values,
    params=_params,
    jsonrpc=st.just("2.0") | st.sampled_from(["1.0", 2.0, None]),
    id_kind=_all_ids | st.none(),
    id_text=st.text(max_size=8),
)
_tainted = st.builds(
    Message,
    kind=st.just("request"),
    method=st.just("tools/call"),
    id_kind=_usable_ids | _all_ids | st.none(),
    taint=st.sampled_from(["huge", "surrogate", "deep", "deep"]),
    depth=st.sampled_from(DEEP),
)
_valid_calls = st.builds(
    Message,
    kind=st.just("request"),
    method=st.just("tools/call"),
    params=_call_params,
    id_kind=_usable_ids,
    id_text=st.text(max_size=8),
)
_notifications = st.builds(
    Message,
    kind=st.just("notification"),
    method=st.sampled_from(
        ["notifications/initialized", "notifications/roots/list_changed", "notifications/x"]
    ),
    params=st.just(_ABSENT) | st.dictionaries(st.text(max_size=8), json_values, max_size=3),
)
_responses = st.builds(Message, kind=st.just("response"), id_kind=st.sampled_from(["int", "string"]))
_truncated = st.builds(
    Message,
    kind=st.just("request"),
    method=st.just("tools/call"),
    params=_call_params,
    id_kind=_all_ids,
    id_text=st.text(max_size=8),
    cut=st.floats(0.0, 1.0),
)
_batches = st.builds(
    Message,
    kind=st.just("batch"),
    batch=st.lists(_valid_calls | _notifications, min_size=1, max_size=3).map(tuple),
)
# No quote (so no key, so certainly no id), no line break, not blank.
_garbage = st.builds(
    Message,
    kind=st.just("garbage"),
    raw=st.binary(min_size=1, max_size=300)
    .map(lambda raw: raw.replace(b'"', b"").replace(b"\n", b"").replace(b"\r", b""))
    .filter(lambda raw: raw.strip() != b""),
)
# Weighted by hand (a plain one_of favours the simplest branches): mostly requests, valid and not.
_WEIGHTED = (
    [_requests] * 5
    + [_valid_calls] * 3
    + [_tainted] * 3
    + [_truncated] * 2
    + [_notifications] * 2
    + [_responses, _batches, _garbage]
)
messages: st.SearchStrategy[Message] = st.sampled_from(_WEIGHTED).flatmap(lambda strategy: strategy)
