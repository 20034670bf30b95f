"""The content of a release: what every pool's gate 3 and release check follow (the enabled
tools with their policy, the disabled servers, each server's spec hash), and its canonical text.

A release holds the whole state and is written on every management change (a server's first
pins, an enable, a disable), so at 100,000 enabled tools its cost is paid per change: the rows
are read as the driver returns them, and the text is assembled from them in one pass, equal
to ``canonical(release_content(...))`` character for character (a property test holds it).
"""

from __future__ import annotations

from collections.abc import Sequence
from json.encoder import encode_basestring_ascii
from typing import Any

from sqlalchemy import Connection, select

from toolpool.store._codec import canonical
from toolpool.store._rows import plain_rows
from toolpool.store._tables import servers, tool_states

__all__ = ["content_of", "release_content", "release_text", "text_of"]

# alias, name, action, effect, approved_hash, resource, approval: the order ``text_of`` reads.
_ENABLED = (
    select(
        tool_states.c.alias,
        tool_states.c.name,
        tool_states.c.action,
        tool_states.c.effect,
        tool_states.c.approved_hash,
        tool_states.c.resource,
        tool_states.c.approval,
    )
    .where(tool_states.c.enabled)
    .order_by(tool_states.c.alias, tool_states.c.name)
)
_DISABLED = select(servers.c.alias).where(~servers.c.enabled).order_by(servers.c.alias)
_SPECS = select(servers.c.alias, servers.c.spec_hash).where(servers.c.spec_hash.is_not(None))
_NO_APPROVAL = "none"

Rows = Sequence[Sequence[Any]]


def release_content(connection: Connection) -> dict[str, Any]:
    """The state as ``connection`` sees it, as a value."""
    return content_of(*_read(connection))


def release_text(connection: Connection) -> str:
    """The state as ``connection`` sees it, as the canonical text a release stores."""
    return text_of(*_read(connection))


def content_of(enabled: Rows, disabled: Sequence[str], specs: Rows) -> dict[str, Any]:
    return {
        "tools": {
            f"{alias}/{name}": {
                "action": action,
                "effect": effect,
                "resource": resource,
                "approved_hash": approved_hash,
                # Only where a call needs approval: releases of tools without one keep
                # the content (and hash) they had before approvals existed.
                **({"approval": approval} if approval != _NO_APPROVAL else {}),
            }
            for alias, name, action, effect, approved_hash, resource, approval in enabled
        },
        "disabled_servers": list(disabled),
        "servers": {alias: spec_hash for alias, spec_hash in specs},
    }


def text_of(enabled: Rows, disabled: Sequence[str], specs: Rows) -> str:
    """``canonical(content_of(...))``, without building and sorting 100,000 small mappings."""
    try:
        tools: dict[str, str] = {}
        for alias, name, action, effect, approved_hash, resource, approval in enabled:
            # Keys in sorted order: action, approval, approved_hash, effect, resource.
            tools[f"{alias}/{name}"] = (
                f'{{"action":{_value(action)},'
                + (f'"approval":{_value(approval)},' if approval != _NO_APPROVAL else "")
                + f'"approved_hash":{_value(approved_hash)},'
                f'"effect":{_value(effect)},"resource":{_value(resource)}}}'
            )
        # Later rows win a shared key, as in the mapping; sorted as ``sort_keys`` sorts them.
        tool_items = ",".join(f"{encode_basestring_ascii(key)}:{tools[key]}" for key in sorted(tools))
        spec_map = {alias: _value(spec_hash) for alias, spec_hash in specs}
        spec_items = ",".join(f"{encode_basestring_ascii(key)}:{spec_map[key]}" for key in sorted(spec_map))
        disabled_items = ",".join(_value(alias) for alias in disabled)
    except _NotText:
        return canonical(content_of(enabled, disabled, specs))
    return f'{{"disabled_servers":[{disabled_items}],"servers":{{{spec_items}}},"tools":{{{tool_items}}}}}'


class _NotText(Exception):
    """A value the fast text does not write (only text and null): the encoder writes it."""


def _value(value: object) -> str:
    if value is None:
        return "null"
    if type(value) is not str:
        raise _NotText
    return encode_basestring_ascii(value)


def _read(connection: Connection) -> tuple[Rows, list[str], Rows]:
    enabled = plain_rows(connection, _ENABLED)
    disabled = [alias for (alias,) in plain_rows(connection, _DISABLED)]
    return enabled, disabled, plain_rows(connection, _SPECS)
