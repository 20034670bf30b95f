"""Admission: turn one connection's published tools into exposed tools, all or nothing.

The rules, in the order they are checked (DESIGN.md):

- R3  every remote name is well formed and unique, and no two map to one local name;
- R2  the published names equal the policy's names: no tool missing, none extra;
- R6  a forbidden tool (``action = false``) is listed but never exposed;
- R4  every other tool's schemas compile strictly as JSON Schema 2020-12;
- R7  a pinned tool whose definition changed is quarantined (not exposed);
- R5  the screener may drop a tool (it is then not exposed; the connection stays admitted).

Any R2, R3 or R4 problem refuses the whole connection with every problem named. A refused
tool's schema can be accepted only by forbidding the tool in the policy.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolpool._list_tokens import definition_tokens
from toolpool.config import PoolSettings, ServerSpec, ToolPolicy
from toolpool.errors import ConnectionRefused
from toolpool.upstream import Link, PublishedTool
from toolpool.vetting.model import ExposedTool
from toolpool.vetting.names import local_name, name_problems, safe_name
from toolpool.vetting.peer_set import PeerSet
from toolpool.vetting.pins import Pins, classify_change
from toolpool.vetting.schemas import CompiledSchema, SchemaLimits, SchemaRejected, compile_schema
from toolpool.vetting.screening import Peer, Screener, Verdict

__all__ = ["Admission", "cut_description", "vet"]

_ELLIPSIS = "\u2026"
_NAMES_SHOWN = 20


@dataclass(frozen=True, slots=True)
class Admission:
    """What vetting decided for one admitted connection."""

    exposed: tuple[ExposedTool, ...]
    dropped: tuple[tuple[str, Verdict], ...]
    forbidden: tuple[str, ...]
    quarantined: tuple[tuple[str, tuple[str, ...]], ...] = ()
    published: Mapping[str, PublishedTool] = field(default_factory=dict)
    verdicts: Mapping[str, Verdict] = field(default_factory=dict)
    # tool -> names of the secrets whose values its definition held (now redacted)
    redacted: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def vet(
    spec: ServerSpec,
    published: Sequence[PublishedTool],
    settings: PoolSettings,
    screener: Screener,
    owner: Link,
    *,
    pins: Pins | None = None,
    peers: Collection[str | Peer] = (),
) -> Admission:
    """Vet one server's complete tool list against its policy.

    Raises:
        ConnectionRefused: an R2, R3 or R4 rule is broken; ``reasons`` names each problem.
    """
    reasons = name_problems(spec.alias, (tool.name for tool in published))
    reasons += _exact_set_problems(spec.tools, published)
    limits = SchemaLimits(max_bytes=settings.max_schema_bytes, max_depth=settings.max_schema_depth)
    compiled: dict[str, tuple[CompiledSchema, CompiledSchema | None]] = {}
    for tool in published:
        policy = spec.tools.get(tool.name)
        if policy is None or policy.forbidden or tool.name in compiled:
            continue
        try:
            compiled[tool.name] = _compile_both(tool, limits)
        except SchemaRejected as exc:
            reasons.append(f"R4: tool {safe_name(tool.name)}: {exc}")
    if reasons:
        raise ConnectionRefused(spec.alias, tuple(reasons))

    exposed: list[ExposedTool] = []
    dropped: list[tuple[str, Verdict]] = []
    quarantined: list[tuple[str, tuple[str, ...]]] = []
    # A server naming its own tools is not shadowing, even where another server shares a name.
    own = {tool.name for tool in published}
    others = PeerSet.of(peers).without(own)
    verdicts: dict[str, Verdict] = {}
    pinned = pins.pins_of(spec.alias) if pins is not None else {}  # one read for the whole server
    for tool in published:
        policy = spec.tools[tool.name]
        if policy.forbidden:
            continue
        verdict = verdicts[tool.name] = screener.screen_tool(tool, others)
        pin = pinned.get(tool.name)
        if pin is not None and pin.hash != tool.definition_hash():
            quarantined.append((tool.name, classify_change(pin.definition, tool, screener)))
            continue
        if verdict.drop:
            dropped.append((tool.name, verdict))
            continue
        input_schema, output_schema = compiled[tool.name]
        exposed.append(_expose(spec.alias, tool, policy, input_schema, output_schema, settings, owner))
    forbidden = tuple(sorted(name for name, policy in spec.tools.items() if policy.forbidden))
    return Admission(
        exposed=tuple(exposed),
        dropped=tuple(dropped),
        forbidden=forbidden,
        quarantined=tuple(quarantined),
        published={tool.name: tool for tool in published},
        verdicts=verdicts,
    )


def cut_description(text: str, max_chars: int) -> str:
    """Cut an untrusted description to ``max_chars`` characters, marking the cut."""
    if len(text) <= max_chars:
        return text
    return text[: max_chars - 1] + _ELLIPSIS


def _exact_set_problems(policies: Mapping[str, ToolPolicy], published: Sequence[PublishedTool]) -> list[str]:
    names = {tool.name for tool in published}
    missing = sorted(set(policies) - names)
    extra = sorted(names - set(policies))
    problems = []
    if missing:
        problems.append(f"R2: the server does not publish {_listing(missing)} named in the policy")
    if extra:
        problems.append(f"R2: the server publishes {_listing(extra)} that the policy does not name")
    return problems


def _listing(names: list[str]) -> str:
    shown = ", ".join(safe_name(name) for name in names[:_NAMES_SHOWN])
    more = f" and {len(names) - _NAMES_SHOWN} more" if len(names) > _NAMES_SHOWN else ""
    return f"{len(names)} tool{'s' if len(names) != 1 else ''} ({shown}{more})"


def _compile_both(tool: PublishedTool, limits: SchemaLimits) -> tuple[CompiledSchema, CompiledSchema | None]:
    try:
        input_schema = compile_schema(tool.input_schema, limits)
    except SchemaRejected as exc:
        raise SchemaRejected(f"inputSchema: {exc}") from None
    if tool.output_schema is None:
        return input_schema, None
    try:
        return input_schema, compile_schema(tool.output_schema, limits)
    except SchemaRejected as exc:
        raise SchemaRejected(f"outputSchema: {exc}") from None


def _expose(
    alias: str,
    tool: PublishedTool,
    policy: ToolPolicy,
    input_schema: CompiledSchema,
    output_schema: CompiledSchema | None,
    settings: PoolSettings,
    owner: Link,
) -> ExposedTool:
    name = local_name(alias, tool.name)
    description = cut_description(tool.description, settings.description_max_chars)
    listed: dict[str, Any] = {"name": name, "description": description, "inputSchema": input_schema.schema}
    if output_schema is not None:
        listed["outputSchema"] = output_schema.schema
    return ExposedTool(
        name=name,
        alias=alias,
        remote_name=tool.name,
        description=description,
        policy=policy,
        definition_hash=tool.definition_hash(),
        input=input_schema,
        output=output_schema,
        annotations=tool.annotations,
        owner=owner,
        list_tokens=definition_tokens(listed),
    )
