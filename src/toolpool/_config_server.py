"""The trusted configuration's server and tool tables: ``[servers.ALIAS]`` and its ``tools``.

Re-exported by ``toolpool.config``; the field docstrings are the keys' documentation
(``docs/configuration.md`` is generated from them).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from toolpool._hashing import canonical_hash
from toolpool._name_patterns import ACTION_PATTERN, ALIAS_PATTERN, REMOTE_NAME_PATTERN
from toolpool.enablement import Event, Refusal, standing_of, transition
from toolpool.runtime_policy import LimitFields, RetryPolicy

__all__ = [
    "ACTION_PATTERN",
    "ALIAS_PATTERN",
    "FROZEN",
    "REMOTE_NAME_PATTERN",
    "ConfigValue",
    "SecretRef",
    "ServerSpec",
    "ToolPolicy",
    "WriteApproval",
]


# Field docstrings are the fields' descriptions: docs/configuration.md is generated from them.
FROZEN = ConfigDict(frozen=True, extra="forbid", strict=True, use_attribute_docstrings=True)
_REFUSALS = {
    Refusal.FORBIDDEN: "a forbidden tool (action = false) cannot be enabled",
    Refusal.WRITE_NEEDS_APPROVAL: (
        'enabling a write tool needs write_approval = { by = "...", reason = "..." } '
        '(or effect = "read" if it only reads)'
    ),
}


class SecretRef(BaseModel):
    """A value kept in the secret store, resolved only when connecting: ``{ secret = "NAME" }``;
    with ``per_principal = true`` each calling principal's own value (``toolpool secrets set
    NAME --principal ana``), and one connection per principal."""

    model_config = FROZEN
    secret: Annotated[str, Field(min_length=1, max_length=128)]
    """The secret's name in the store (`toolpool secrets set NAME`), resolved only when connecting."""
    per_principal: bool = False
    """Each calling principal's own value (`secrets set NAME --principal P`), and a connection per principal."""


ConfigValue: TypeAlias = str | SecretRef


class WriteApproval(BaseModel):
    """Who approved a ``write`` tool in the config, and why (R9)."""

    model_config = FROZEN
    by: Annotated[str, Field(min_length=1)]
    """Who approved enabling this write tool (recorded in the audit log)."""
    reason: Annotated[str, Field(min_length=1)]
    """Why it was approved."""


class ToolPolicy(LimitFields):
    """The local entry for one published tool of one alias: the only source of permission (R8).

    ``approval = "each_call"`` makes every call wait for a person's single-use approval; the
    limit keys (``rate``, ``burst``, ``max_concurrent_calls``) apply to this tool's calls.
    """

    model_config = FROZEN
    action: str | Literal[False]
    """The local action name tickets grant (`demo.lookup`); `false` forbids the tool: listed (R2), never exposed (R6)."""
    effect: Literal["read", "write"] = "write"
    """What the tool does locally: `"read"` or `"write"`; a write tool needs `write_approval` to be enabled, and its arguments are checked for taint."""
    enabled: bool = False
    """Enabled by the config author (recorded in the store as actor `"config"`)."""
    write_approval: WriteApproval | None = None
    """For an enabled write tool: `{ by = "...", reason = "..." }`."""
    resource: str | None = None
    """A template over the arguments (`"{key}"`) naming the resource a ticket must allow; unset, any resource."""
    max_argument_bytes: Annotated[int, Field(gt=0)] | None = None
    """This tool's cap on the size of a call's arguments (JSON bytes); unset, the pool's."""
    max_result_chars: Annotated[int, Field(ge=64)] | None = None
    """This tool's cap on the result text a model sees (the full result is kept as a blob); unset, the pool's."""
    pin: Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")] | None = None
    """The approved hash of the tool's definition (`sha256:...`): another definition is quarantined (R7)."""
    approval: Literal["none", "each_call"] = "none"
    """`"each_call"`: every call waits for a person's single-use approval (`approval_pending`)."""
    retry: RetryPolicy | None = None
    """Retries of this read tool's calls (see `retry` below); unset, the server's."""

    @property
    def forbidden(self) -> bool:
        """``action = false``: listed (R2) but never exposed (R6)."""
        return self.action is False

    @field_validator("action")
    @classmethod
    def _action_is_a_name(cls, value: str | Literal[False]) -> str | Literal[False]:
        if value is not False and not ACTION_PATTERN.match(value):
            raise ValueError("must be false or a name of letters, digits and . _ : -")
        return value

    @model_validator(mode="after")
    def _enabling_follows_effect(self) -> ToolPolicy:
        if self.enabled:
            standing = standing_of(
                forbidden=self.forbidden, effect=self.effect, write_approved=self.write_approval is not None
            )
            after = transition(standing, Event.ENABLE, enabled=False)
            if isinstance(after, Refusal):
                raise ValueError(_REFUSALS[after])
        if self.retry is not None and self.effect == "write":
            raise ValueError("a write tool is never retried: `retry` is for read tools")
        return self


class ServerSpec(LimitFields):
    """How to reach one alias, and the policy for each of its tools; the limit keys apply to
    every call to the alias, ``retry`` to its read tools, ``require_tls`` (default: the
    pool's) refuses ``http://`` except to loopback with ``allow_private_network``, the
    ``tls_client_*`` secrets (PEM) are the client certificate and key for mutual TLS and
    ``tls_ca`` a CA bundle (PEM file) trusted instead of the system's. With a
    ``per_principal`` secret, ``connect`` reads and vets the tools with ``admit_as``'s
    credentials (else each such secret's pool-wide value) and each calling principal gets a
    connection of its own, closed after ``idle_close_s`` without calls."""

    model_config = FROZEN
    alias: str
    """The server's alias: the table's name, never a key."""
    transport: Literal["stdio", "http", "sse"]
    """`"stdio"` (a child process), `"http"` (streamable HTTP) or `"sse"`."""
    command: str | None = None
    """stdio: the program to start (an argument list, never a shell); a relative path is taken beside the config file."""
    args: tuple[str, ...] = ()
    """stdio: the program's arguments."""
    env: Mapping[str, ConfigValue] = Field(default_factory=dict)
    """stdio: exactly the child's environment, nothing from the host; values may be `{ secret = "NAME" }`."""
    cwd: Path | None = None
    """stdio: the child's working folder, relative to the config file; unset, the config file's folder."""
    url: str | None = None
    """http/sse: the server's URL (`http://` or `https://`)."""
    headers: Mapping[str, ConfigValue] = Field(default_factory=dict)
    """http/sse: headers sent with every request; values may be `{ secret = "NAME" }`."""
    call_timeout_s: Annotated[float, Field(gt=0, le=3600)] = 30.0
    """How long one call may take before `mcp_timeout` (the connection is then dropped)."""
    connect_timeout_s: Annotated[float, Field(gt=0, le=600)] = 30.0
    """How long starting, the handshake and listing the tools may take."""
    health_interval_s: Annotated[float, Field(gt=0, le=3600)] = 15.0
    """How often the watchdog checks an idle connection (R12)."""
    era: str = "auto"
    """`"auto"` (probe once, then remembered), `"legacy"` or a modern protocol version (`"2026-07-28"`)."""
    lifecycle: Literal["persistent", "per_call"] = "persistent"
    """`"persistent"` keeps one connection; `"per_call"` starts a fresh server for every call."""
    allow_private_network: bool = False
    """Lets the SSRF guard accept private, loopback and link-local addresses for this server (R14)."""
    sandbox: Literal["none", "bwrap"] = "none"
    """`"bwrap"` runs a stdio server inside bubblewrap; `"none"` does not."""
    allow_network: bool = False
    """Sandboxed servers only: give the sandbox network access (else none, not even 127.0.0.1)."""
    sandbox_read_only: tuple[Path, ...] = ()
    """Sandboxed servers only: more folders the server may read, relative to the config file."""
    max_memory_mb: Annotated[int, Field(ge=16)] | None = 4096
    """stdio: RLIMIT_DATA of the server process, in MiB."""
    max_cpu_s: Annotated[int, Field(ge=1)] | None = 3600
    """stdio: CPU seconds before the kernel kills the server."""
    max_open_files: Annotated[int, Field(ge=16)] | None = 1024
    """stdio: the server's file descriptor limit."""
    breaker_failures: Annotated[int, Field(ge=1, le=1000)] = 5
    """Upstream failures in a row that open the alias's circuit breaker (`circuit_open`)."""
    breaker_cooldown_s: Annotated[float, Field(gt=0, le=3600)] = 30.0
    """How long an open breaker refuses calls before letting one try."""
    enabled: bool = True
    """`false` turns the whole server off: nothing connects, its tools are refused (`tool_disabled`)."""
    retry: RetryPolicy | None = None
    """`{ attempts, backoff_ms, deadline_s }`: retries of this server's read calls."""
    require_tls: bool | None = None
    """Refuse `http://` (except loopback with `allow_private_network`); unset, `[pool] require_tls`."""
    tls_client_cert: SecretRef | None = None
    """Mutual TLS: the client certificate (PEM), as `{ secret = "NAME" }`."""
    tls_client_key: SecretRef | None = None
    """Mutual TLS: the client key (PEM), as `{ secret = "NAME" }`."""
    tls_ca: Path | None = None
    """A CA bundle (PEM file, relative to the config file) trusted instead of the system's."""
    admit_as: Annotated[str, Field(min_length=1, max_length=128)] | None = None
    """With a `per_principal` secret: the principal whose value admits the server; unset, each secret's pool-wide value."""
    idle_close_s: Annotated[float, Field(gt=0, le=86_400)] = 300.0
    """With a `per_principal` secret: a principal's connection closes after this long without calls."""
    tools: Mapping[str, ToolPolicy] = Field(default_factory=dict)
    """One table per published tool: the exact-match set (R2)."""

    @property
    def spec_hash(self) -> str:
        """``sha256:`` of how this alias is reached and what runs there: transport, command,
        arguments, environment (secrets by name), working folder, URL, headers, sandbox and
        network allowances. Releases record it, so that a resumed session is never served by
        another command or URL under the same alias (R15). Timeouts, limits and tool
        policies are not part of it."""
        reach: dict[str, object] = {
            "transport": self.transport,
            "command": self.command,
            "args": list(self.args),
            "env": {key: _plain_value(value) for key, value in self.env.items()},
            "cwd": None if self.cwd is None else str(self.cwd),
            "url": self.url,
            "headers": {key: _plain_value(value) for key, value in self.headers.items()},
            "sandbox": self.sandbox,
            "allow_network": self.allow_network,
            "sandbox_read_only": [str(path) for path in self.sandbox_read_only],
            "allow_private_network": self.allow_private_network,
        }
        if self.tls_client_cert is not None and self.tls_client_key is not None:
            # Only when set, so that the hashes releases already hold stay what they were.
            reach["tls_client"] = [_plain_value(self.tls_client_cert), _plain_value(self.tls_client_key)]
        if self.tls_ca is not None:
            reach["tls_ca"] = str(self.tls_ca)
        return canonical_hash(reach)

    @field_validator("era")
    @classmethod
    def _era_is_known(cls, value: str) -> str:
        if value in ("auto", "legacy"):
            return value
        # Only here: the SDK's types take a second to import, and most servers say auto or legacy.
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if value not in MODERN_PROTOCOL_VERSIONS:
            known = ", ".join(repr(v) for v in ("auto", "legacy", *MODERN_PROTOCOL_VERSIONS))
            raise ValueError(f"must be one of {known}")
        return value

    @field_validator("tools")
    @classmethod
    def _tool_names_are_remote_names(cls, value: Mapping[str, ToolPolicy]) -> Mapping[str, ToolPolicy]:
        for name in value:
            if not REMOTE_NAME_PATTERN.match(name):
                raise ValueError(f"tool name {name!r} must match {REMOTE_NAME_PATTERN.pattern}")
        return value

    @model_validator(mode="after")
    def _transport_fields_fit(self) -> ServerSpec:
        if self.transport == "stdio":
            if not self.command:
                raise ValueError("a stdio server needs `command`")
            if self.url is not None or self.headers:
                raise ValueError("`url` and `headers` are for http and sse servers")
        else:
            if not self.url:
                raise ValueError(f"an {self.transport} server needs `url`")
            if not self.url.startswith(("http://", "https://")):
                raise ValueError("`url` must start with http:// or https://")
            if self.command is not None or self.args or self.env or self.cwd is not None:
                raise ValueError("`command`, `args`, `env` and `cwd` are for stdio servers")
            if self.sandbox != "none" or self.allow_network or self.sandbox_read_only:
                raise ValueError("`sandbox`, `allow_network` and `sandbox_read_only` are for stdio servers")
        if (self.tls_client_cert is None) != (self.tls_client_key is None):
            raise ValueError("mutual TLS needs both `tls_client_cert` and `tls_client_key`")
        if (self.tls_client_cert is not None or self.tls_ca is not None) and self.transport == "stdio":
            raise ValueError("`tls_client_cert`, `tls_client_key` and `tls_ca` are for http and sse servers")
        return self

    @property
    def per_principal(self) -> bool:
        """Whether some value of this server is a ``per_principal`` secret: then each calling
        principal gets a connection of its own."""
        values = (*self.env.values(), *self.headers.values(), self.tls_client_cert, self.tls_client_key)
        return any(isinstance(value, SecretRef) and value.per_principal for value in values)


def _plain_value(value: ConfigValue) -> str | dict[str, str]:
    if isinstance(value, str):
        return value
    return {"secret": value.secret, "per": "principal"} if value.per_principal else {"secret": value.secret}
