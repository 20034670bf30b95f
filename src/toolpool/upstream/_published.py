"""The wire model of a published tool: one entry of a server's ``tools/list``, as announced.

It is untrusted data (DESIGN: PublishedTool); vetting (``toolpool.vetting``) turns it into an
exposed tool or refuses it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolpool._hashing import definition_hash

if TYPE_CHECKING:
    import mcp_types

__all__ = ["PublishedTool"]


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
        """The pin hash of ``definition()`` (``toolpool._hashing.definition_hash``)."""
        return definition_hash(self.definition())
