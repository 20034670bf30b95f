"""Span, metric and attribute names: the OpenTelemetry conventions for MCP and GenAI, and ours.

Kept in one place so the gateway, the call pipeline, the admitter and the agent runtime say the
same thing, and so a test can check a trace against the conventions by name.
"""

from __future__ import annotations

__all__ = [
    "ALIAS",
    "ERROR_TYPE",
    "JSONRPC_REQUEST_ID",
    "MCP_METHOD",
    "MCP_PROTOCOL_VERSION",
    "MCP_SESSION_ID",
    "OPERATION",
    "PRINCIPAL",
    "RELEASE",
    "SESSION",
    "SNAPSHOT_VERSION",
    "TOOL_NAME",
]

# The MCP conventions (semantic-conventions-genai, docs/gen-ai/mcp.md)
MCP_METHOD = "mcp.method.name"
MCP_SESSION_ID = "mcp.session.id"
MCP_PROTOCOL_VERSION = "mcp.protocol.version"
JSONRPC_REQUEST_ID = "jsonrpc.request.id"
TOOL_NAME = "gen_ai.tool.name"
OPERATION = "gen_ai.operation.name"
ERROR_TYPE = "error.type"
RPC_STATUS = "rpc.response.status_code"
NETWORK_TRANSPORT = "network.transport"

# The GenAI conventions for model requests (the agent runtime)
PROVIDER = "gen_ai.provider.name"
REQUEST_MODEL = "gen_ai.request.model"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
TOOL_CALL_ID = "gen_ai.tool.call.id"

# toolpool's own
ALIAS = "toolpool.alias"
RELEASE = "toolpool.release"
SNAPSHOT_VERSION = "toolpool.snapshot.version"
PRINCIPAL = "toolpool.principal"
SESSION = "toolpool.session.id"

# Metric names
SERVER_DURATION = "mcp.server.operation.duration"
CLIENT_DURATION = "mcp.client.operation.duration"
CALLS = "toolpool.calls"
TOOLS_GREW = "toolpool.tools_grew"
STORE_DURATION = "toolpool.store.operation.duration"
CONNECTIONS_OPEN = "toolpool.connections.open"
TOOLS_EXPOSED = "toolpool.tools.exposed"
TOOL_LIST_TOKENS = "toolpool.tool_list.tokens"
BREAKER_STATE = "toolpool.breaker.state"

# The buckets the MCP conventions recommend for operation durations, in seconds.
DURATION_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
