"""What toolpool exposes after vetting a published tool (``toolpool.upstream.PublishedTool``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from toolpool.config import ToolPolicy
from toolpool.tickets import Permission
from toolpool.upstream import Link
from toolpool.vetting.schemas import CompiledSchema

__all__ = ["ExposedTool"]


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
    owner: Link = field(repr=False)
    untrusted: bool = True
    list_tokens: int = 0
    """What this tool costs a model's prompt as listed (``toolpool._list_tokens``)."""

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
        """Action, effect, resource template and approval, from the local policy."""
        return Permission(self.action, self.policy.effect, self.policy.resource, self.policy.approval)
