"""Gate 9: a result as untrusted content — bounded in size, checked against the tool's output
schema, sanitized, screened, clipped for the prompt (the whole kept as a blob), marked untrusted.
"""

from __future__ import annotations

import json

import mcp_types

from toolpool import errors
from toolpool.calls._envelope import Envelope, refusal, upstream_failure
from toolpool.calls._results import BlobStore, clip, content_text, sanitize
from toolpool.config import PoolSettings
from toolpool.redaction import map_strings
from toolpool.vetting import ExposedTool, Screener

__all__ = ["shape_result"]

# One encoder for every size check: json.dumps with options builds a new one per call.
_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False)


async def shape_result(
    tool: ExposedTool,
    result: mcp_types.CallToolResult,
    settings: PoolSettings,
    screener: Screener,
    blobs: BlobStore,
) -> Envelope:
    """The Envelope for what ``tool``'s server returned: ``ok``, or the gate-9 refusal."""
    raw = content_text(result.content)
    structured = result.structured_content
    size = len(raw.encode("utf-8", "surrogatepass"))
    structured_text = ""
    if structured is not None:
        try:
            structured_text = _ENCODER.encode(structured)
        except (TypeError, ValueError, RecursionError):
            return refusal(
                errors.MCP_REMOTE_ERROR,
                tool.name,
                f"{tool.name} returned structured content that is not JSON",
            )
        size += len(structured_text.encode("utf-8", "surrogatepass"))
    if size > settings.max_result_bytes:  # the text and the structured content together
        return refusal(
            errors.RESULT_TOO_LARGE,
            tool.name,
            f"{tool.name} returned more than {settings.max_result_bytes} bytes; the result was discarded",
        )
    if result.is_error:
        return upstream_failure(errors.MCP_REMOTE_ERROR, tool.name, raw)
    if tool.output is not None and (structured is None or await tool.output.check(structured, limit=1)):
        return refusal(
            errors.MCP_REMOTE_ERROR,
            tool.name,
            f"{tool.name} returned a result that does not match its output schema",
        )
    verdict = screener.screen_text(raw if structured is None else f"{raw}\n{structured_text}")
    clean = sanitize(raw)
    text, clipped = clip(clean, tool.policy.max_result_chars or settings.max_result_chars)
    blob_id = None
    if clipped:
        blob_id = blobs.keep(tool.name, clean)
        text += f"\n[clipped: {len(clean) - len(text)} more characters are kept as result blob {blob_id}]"
    return Envelope(
        ok=True,
        code=errors.OK,
        text=text,
        structured=map_strings(structured, sanitize) if structured is not None else None,
        untrusted=True,
        tool=tool.name,
        suspicious=verdict.drop,
        screen_reasons=verdict.reasons,
        clipped=clipped,
        blob_id=blob_id,
    )
