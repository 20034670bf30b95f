"""The trusted local configuration: TOML in, frozen typed objects out.

The configuration is the only place where servers and their tools are named (R1, R2). It is
read once, validated strictly (unknown keys and wrong types are errors, nothing is coerced)
and never consults the host environment: commands, paths and environments are exactly what
the file says, with paths resolved against the file's own folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from toolpool._config_pool import PoolSettings, TelemetrySettings
from toolpool._config_server import (
    ACTION_PATTERN,
    ALIAS_PATTERN,
    FROZEN,
    REMOTE_NAME_PATTERN,
    SecretRef,
    ServerSpec,
    ToolPolicy,
    WriteApproval,
)
from toolpool._config_text import read_config
from toolpool._tls_rule import plain_http_problem
from toolpool._toml_lines import config_error, missing_beside_unknown, read_toml, validated
from toolpool.runtime_policy import LimitFields, PrincipalPolicy, RetryPolicy

__all__ = [
    "ACTION_PATTERN",
    "ALIAS_PATTERN",
    "REMOTE_NAME_PATTERN",
    "Config",
    "LimitFields",
    "PoolSettings",
    "PrincipalPolicy",
    "RetryPolicy",
    "SecretRef",
    "ServerSpec",
    "TelemetrySettings",
    "ToolPolicy",
    "WriteApproval",
    "load_config",
    "parse_config",
    "read_config",
]


class Config(BaseModel):
    """A whole validated configuration; ``source`` is the file it came from."""

    model_config = FROZEN
    source: Path
    """The file the configuration came from (not a key)."""
    pool: PoolSettings = Field(default_factory=PoolSettings)
    """`[pool]`: pool-wide settings and limits."""
    telemetry: TelemetrySettings = Field(default_factory=TelemetrySettings)
    """`[telemetry]`: traces, metrics and the call log."""
    servers: Mapping[str, ServerSpec] = Field(default_factory=dict)
    """`[servers.ALIAS]`: one table per upstream server."""
    principals: Mapping[str, PrincipalPolicy] = Field(default_factory=dict)
    """`[principals.NAME]` (or `"*"`): one principal's limits and quota."""

    def requires_tls(self, alias: str) -> bool:
        """Whether ``alias`` must be reached over ``https://`` (its own setting, else the pool's)."""
        own = self.servers[alias].require_tls
        return self.pool.require_tls if own is None else own

    @property
    def pins(self) -> dict[tuple[str, str], str]:
        """The pins the configuration itself sets (``pin = "sha256:..."``): trusted local
        policy, ahead of any pin in the store (R7)."""
        return {
            (alias, name): policy.pin
            for alias, spec in self.servers.items()
            for name, policy in spec.tools.items()
            if policy.pin is not None
        }

    @property
    def store_url(self) -> str:
        """The store's URL: ``pool.store``, with a relative SQLite path taken beside the config
        file; by default ``toolpool.db`` beside it."""
        url = self.pool.store or "sqlite:///toolpool.db"
        prefix = "sqlite:///"
        if url.startswith(prefix) and not url[len(prefix) :].startswith("/"):
            return prefix + str(self.source.parent / url[len(prefix) :])
        return url


def load_config(path: str | Path) -> Config:
    """Read and validate a toolpool TOML file.

    Raises:
        ConfigError: the file is missing or unreadable, is not TOML, has an unknown key, a
            wrong type, or breaks a rule; the message names the file, the line and the key.
    """
    return parse_config(*read_config(path))


def parse_config(text: str, source: Path, *, toml: dict[str, Any] | None = None) -> Config:
    """Validate TOML ``text`` as if it were read from ``source`` (paths resolve beside it).

    ``toml``: the values ``text`` holds, when the caller has them already (the CLI keeps a large
    configuration's beside it); they are validated as values read from ``text`` are.

    Raises:
        ConfigError: as for ``load_config``.
    """
    raw = read_toml(text, source) if toml is None else toml
    unknown = sorted(set(raw) - {"pool", "servers", "telemetry", "principals"})
    if unknown:
        raise config_error(
            text,
            source,
            (unknown[0],),
            "unknown key (expected `pool`, `servers`, `telemetry` or `principals`)",
        )
    servers_raw = raw.get("servers", {})
    if not isinstance(servers_raw, dict):
        raise config_error(text, source, ("servers",), "must be a table of servers")
    pool = validated(text, source, ("pool",), PoolSettings, raw.get("pool", {}))
    telemetry = validated(text, source, ("telemetry",), TelemetrySettings, raw.get("telemetry", {}))
    servers = {alias: _server(text, source, alias, body) for alias, body in servers_raw.items()}
    principals_raw = raw.get("principals", {})
    if not isinstance(principals_raw, dict):
        raise config_error(text, source, ("principals",), "must be a table of principals")
    principals = {
        name: validated(text, source, ("principals", name), PrincipalPolicy, body)
        for name, body in principals_raw.items()
    }
    for alias, spec in servers.items():
        problem = _tls_problem(spec, pool.require_tls)
        if problem is not None:
            raise config_error(text, source, ("servers", alias, "url"), problem)
    return Config(source=source, pool=pool, servers=servers, telemetry=telemetry, principals=principals)


def _tls_problem(spec: ServerSpec, pool_requires: bool) -> str | None:
    """Why ``spec``'s URL breaks ``require_tls`` (``toolpool._tls_rule``), or None."""
    required = pool_requires if spec.require_tls is None else spec.require_tls
    if not required or spec.url is None or not spec.url.startswith("http://"):
        return None
    host = urlsplit(spec.url).hostname or ""
    return plain_http_problem(host, allow_private_network=spec.allow_private_network)


def _server(text: str, source: Path, alias: str, body: object) -> ServerSpec:
    if not ALIAS_PATTERN.match(alias):
        raise config_error(
            text,
            source,
            ("servers", alias),
            "an alias is 1-48 letters, digits, '-' or single '_', starting with a letter or digit",
        )
    if not isinstance(body, dict):
        raise config_error(text, source, ("servers", alias), "must be a table")
    if "alias" in body:
        raise config_error(text, source, ("servers", alias, "alias"), "unknown key")
    needed = {"stdio": "command", "http": "url", "sse": "url"}.get(str(body.get("transport")))
    if needed is not None and needed not in body:
        why = f"is required for a {body['transport']} server"
        unknown = [key for key in body if key not in ServerSpec.model_fields]
        if unknown:
            raise missing_beside_unknown(
                text, source, ("servers", alias, needed), ("servers", alias, str(unknown[0])), why
            )
        raise config_error(text, source, ("servers", alias, needed), why)
    fields: dict[str, Any] = {"alias": alias, **body}
    for key in ("args", "sandbox_read_only"):
        if isinstance(fields.get(key), list):
            fields[key] = tuple(
                Path(item) if key != "args" and isinstance(item, str) else item for item in fields[key]
            )
    spec = _resolve_paths(validated(text, source, ("servers", alias), ServerSpec, fields), source.parent)
    if spec.sandbox == "bwrap" and spec.cwd is not None and source.is_relative_to(spec.cwd):
        raise config_error(
            text,
            source,
            ("servers", alias, "cwd"),
            "a sandboxed server's cwd is writable inside the sandbox, so it must not hold this config: "
            "give the server a folder of its own",
        )
    return spec


def _resolve_paths(spec: ServerSpec, base: Path) -> ServerSpec:
    """Make `cwd` and a relative command path absolute against the config's folder."""
    cwd = base if spec.cwd is None else (base / spec.cwd).resolve()
    command = spec.command
    if command is not None and "/" in command and not command.startswith("/"):
        command = str((base / command).resolve())
    if spec.transport != "stdio":
        return (
            spec
            if spec.tls_ca is None
            else spec.model_copy(update={"tls_ca": (base / spec.tls_ca).resolve()})
        )
    read_only = tuple((base / path).resolve() for path in spec.sandbox_read_only)
    return spec.model_copy(update={"cwd": cwd, "command": command, "sandbox_read_only": read_only})
