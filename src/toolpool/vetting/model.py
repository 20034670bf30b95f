"""The two faces of a tool: what a server published, and what toolpool exposes after vetting."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import mcp_types

from toolpool.config import ToolPolicy
from toolpool.tickets import Permission
from toolpool.vetting.schemas import CompiledSchema

__all__ = ["ExposedTool", "PublishedTool"]


@dataclass(frozen=True, slots=True)
class PublishedTool:
    """One entry of a server's ``tools/list``: untrusted data, exactly as announced."""

    name: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | None = None
    annotations: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_wire(cls, tool: mcp_types.Tool) -> PublishedTool:
        annotations = (
            tool.annotations.model_dump(by_alias=True, exclude_none=True) if tool.annotations else {}
        )
        return cls(
            name=tool.name,
            description=tool.description or "",
            input_schema=tool.input_schema,
            output_schema=tool.output_schema,
            annotations=annotations,
        )

    def redacted(self, redact: Callable[[Any], Any]) -> PublishedTool:
        """This tool with every string of its definition, keys included, passed through
        ``redact`` (a ``Redactor.redact_value``)."""
        return PublishedTool(
            name=redact(self.name),
            description=redact(self.description),
            input_schema=redact(self.input_schema),
            output_schema=redact(self.output_schema),
            annotations=redact(self.annotations),
        )

    def definition(self) -> dict[str, Any]:
        """The canonical definition that pins hash (R7): name, description, schemas, annotations."""
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "outputSchema": self.output_schema,
            "annotations": self.annotations,
        }

    def definition_hash(self) -> str:
        canonical = json.dumps(self.definition(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return "sha256:" + hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, eq=False, slots=True)
class ExposedTool:
    """A vetted tool as toolpool exposes it: local name, local policy, compiled schemas.

    Compared by identity: gate 2 checks that the tool a call names is the very object the
    registry holds for a live connection, not merely one with the same name.
    ``description`` came from the server: it is cut to length and ``untrusted`` is True.
    """

    name: str
    alias: str
    remote_name: str
    description: str
    policy: ToolPolicy
    definition_hash: str
    input: CompiledSchema
    output: CompiledSchema | None
    annotations: Mapping[str, Any]
    owner: object = field(repr=False)
    untrusted: bool = True

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return self.input.schema

    @property
    def output_schema(self) -> Mapping[str, Any] | None:
        return None if self.output is None else self.output.schema

    @property
    def effect(self) -> Literal["read", "write"]:
        return self.policy.effect

    @property
    def action(self) -> str:
        # Forbidden tools (action = false) are never exposed, so this is always a name.
        assert self.policy.action is not False
        return self.policy.action

    @property
    def permission(self) -> Permission:
        """Action, effect and resource template, from the local policy."""
        return Permission(self.action, self.policy.effect, self.policy.resource)
