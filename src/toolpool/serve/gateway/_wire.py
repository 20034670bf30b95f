"""What an MCP client is sent: exposed tools as MCP ``Tool``s, Envelopes as ``CallToolResult``s.

Only local, vetted data leaves: the local name, the screened and clipped description, the
compiled schemas. Upstream annotations are not forwarded: they grant nothing here (R8), and a
client might read ``readOnlyHint`` as leave to call without asking. A refusal or failure
carries its Envelope code in the text and in ``_meta``; an upstream server's own error text
(``envelope.audit_detail``) never does.
"""

from __future__ import annotations

import copy

import mcp_types

from toolpool.calls import Envelope
from toolpool.registry import Snapshot
from toolpool.vetting import ExposedTool

__all__ = ["CODE_META_KEY", "META_PREFIX", "wire_result", "wire_result_body", "wire_tool", "wire_tools"]

CODE_META_KEY = "toolpool/code"
"""The ``_meta`` key of every ``CallToolResult`` toolpool sends: the Envelope code."""
META_PREFIX = "toolpool/"
"""Every other fact of an Envelope's ``meta`` goes under this prefix (``toolpool/retry_after_s``,
``toolpool/approval_id``)."""


def wire_tool(tool: ExposedTool) -> mcp_types.Tool:
    """One exposed tool as ``tools/list`` shows it."""
    output = None if tool.output is None else copy.deepcopy(dict(tool.output.schema))
    return mcp_types.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=copy.deepcopy(dict(tool.input_schema)),
        output_schema=output,
    )


def wire_tools(snapshot: Snapshot) -> mcp_types.ListToolsResult:
    """A whole snapshot, in its order (sorted by local name, so every listing is deterministic)."""
    return mcp_types.ListToolsResult(tools=[wire_tool(tool) for tool in snapshot.tools])


def wire_result(envelope: Envelope) -> mcp_types.CallToolResult:
    """The client's view of one call: the model-facing text, fenced when untrusted."""
    meta = _meta(envelope)
    if envelope.ok:
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(type="text", text=envelope.for_model())],
            structured_content=None if envelope.structured is None else dict(envelope.structured),
            _meta=meta,
        )
    return mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text=f"{envelope.code}: {envelope.text}")],
        is_error=True,
        _meta=meta,
    )


def wire_result_body(envelope: Envelope) -> dict[str, object]:
    """``wire_result`` as the SDK's handshake-era serializer leaves it, built as plain values
    (the lean front's ``tools/call`` answer; a test holds the two equal)."""
    if envelope.ok:
        body: dict[str, object] = {
            "_meta": _meta(envelope),
            "content": [{"text": envelope.for_model(), "type": "text"}],
            "isError": False,
        }
        if envelope.structured is not None:
            body["structuredContent"] = dict(envelope.structured)
        return body
    return {
        "_meta": _meta(envelope),
        "content": [{"text": f"{envelope.code}: {envelope.text}", "type": "text"}],
        "isError": True,
    }


def _meta(envelope: Envelope) -> dict[str, object]:
    meta: dict[str, object] = {CODE_META_KEY: envelope.code}
    if envelope.meta:
        meta.update({META_PREFIX + key: value for key, value in envelope.meta.items()})
    return meta
