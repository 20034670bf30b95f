"""Import: connect an alias once, list and vet its tools, screen them, and store what was
found — every tool disabled until someone enables it (R9), pinned unless its definition
changed since it was approved (R7). The CLI's ``toolpool import`` and the admin API share it.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolpool.pool import Pool
from toolpool.store import ImportedTool, Store

__all__ = ["ImportResult", "import_alias"]


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What an import stored: each published tool with its verdict, and the names whose
    definition changed since it was approved (quarantined, not re-pinned)."""

    alias: str
    tools: tuple[ImportedTool, ...]
    changed: frozenset[str]


async def import_alias(pool: Pool, store: Store, alias: str, actor: str) -> ImportResult:
    """Import ``alias`` through ``pool`` (entered, and using ``store``) as ``actor``.

    Raises:
        UnknownAlias: the configuration does not name ``alias``.
        ConnectionRefused: an admission rule refused the server; nothing was stored.
        UpstreamError: the server could not be started, reached or listed.
    """
    published, admission = await pool.inspect(alias)
    changed = frozenset(name for name, _ in admission.quarantined)
    imported = []
    for tool in published:
        verdict = admission.verdicts.get(tool.name)
        imported.append(
            ImportedTool(
                name=tool.name,
                definition=tool.definition(),
                definition_hash=tool.definition_hash(),
                verdict="drop" if verdict is not None and verdict.drop else "pass",
                score=0.0 if verdict is None else verdict.score,
                reasons=() if verdict is None else verdict.reasons,
            )
        )
    store.tools.record_import(alias, imported, actor)
    first = [
        (tool.name, tool.definition(), tool.definition_hash())
        for tool in published
        if tool.name not in changed
    ]
    store.pins.approve_first(alias, first, actor)  # those without a pin yet, in one release
    return ImportResult(alias, tuple(imported), changed)
