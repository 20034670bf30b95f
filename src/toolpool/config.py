"""The trusted local configuration: TOML in, frozen typed objects out.

The configuration is the only place where servers and their tools are named (R1, R2). It is
read once, validated strictly (unknown keys and wrong types are errors, nothing is coerced)
and never consults the host environment: commands, paths and environments are exactly what
the file says, with paths resolved against the file's own folder.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeAlias
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from toolpool._hashing import canonical_hash
from toolpool._tls_rule import plain_http_problem
from toolpool._toml_lines import config_error, missing_beside_unknown, read_toml, validated
from toolpool.enablement import Event, Refusal, standing_of, transition
from toolpool.errors import ConfigError
from toolpool.runtime_policy import LimitFields, PrincipalPolicy, RetryPolicy

__all__ = [
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

ALIAS_PATTERN = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]|_(?!_)){0,47}$")
REMOTE_NAME_PATTERN = re.compile(r"^[A-Za-z0-9._-]{1,128}$")
ACTION_PATTERN = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
_JUDGE_PATTERN = re.compile(r"^(openai|anthropic):[^\s:][^\s]{0,190}$")

# Field docstrings are the fields' descriptions: docs/configuration.md is generated from them.
_FROZEN = ConfigDict(frozen=True, extra="forbid", strict=True, use_attribute_docstrings=True)
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

    model_config = _FROZEN
    secret: Annotated[str, Field(min_length=1, max_length=128)]
    """The secret's name in the store (`toolpool secrets set NAME`), resolved only when connecting."""
    per_principal: bool = False
    """Each calling principal's own value (`secrets set NAME --principal P`), and a connection per principal."""


ConfigValue: TypeAlias = str | SecretRef


class WriteApproval(BaseModel):
    """Who approved a ``write`` tool in the config, and why (R9)."""

    model_config = _FROZEN
    by: Annotated[str, Field(min_length=1)]
    """Who approved enabling this write tool (recorded in the audit log)."""
    reason: Annotated[str, Field(min_length=1)]
    """Why it was approved."""


class ToolPolicy(LimitFields):
    """The local entry for one published tool of one alias: the only source of permission (R8).

    ``approval = "each_call"`` makes every call wait for a person's single-use approval; the
    limit keys (``rate``, ``burst``, ``max_concurrent_calls``) apply to this tool's calls.
    """

    model_config = _FROZEN
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

    model_config = _FROZEN
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


class PoolSettings(LimitFields):
    """Pool-wide limits, with defaults chosen to admit real servers and refuse abuse.

    The limit keys (``rate``, ``burst``, ``max_concurrent_calls``) are each alias's default.
    ``redis`` (``redis://host:port/db``) keeps limits and quotas where several processes
    share them; ``approval_ttl_s`` is how long a call's approval stays usable;
    ``require_tls`` is every server's default.

    ``auth_*`` apply to ``toolpool serve --http``: ``auth_failure_limit`` failed
    authentications (MCP token, admin token, UI login, another token's session id) from one
    client address within ``auth_failure_window_s`` seconds refuse every request from that
    address for ``auth_refusal_s`` seconds (429, ``Retry-After``; 0 counts and reports only).
    Failures are logged and audited at most once per address per window.
    """

    model_config = _FROZEN
    store: str | None = None
    """The store's URL: `sqlite:///PATH` (relative to the config file) or `postgresql+psycopg://...`; unset, `toolpool.db` beside the config file."""
    description_max_chars: Annotated[int, Field(ge=16, le=100_000)] = 400
    """Tool descriptions are cut to this length before a model sees them (R5)."""
    max_list_pages: Annotated[int, Field(ge=1, le=100_000)] = 100
    """Pages of `tools/list` read from one server before the connection is refused (R2)."""
    max_tools_per_server: Annotated[int, Field(ge=1, le=100_000)] = 2000
    """Tools one server may publish before the connection is refused (R2)."""
    max_argument_bytes: Annotated[int, Field(ge=16)] = 256 * 1024
    """The cap on a call's arguments (JSON bytes): larger is `invalid_arguments`."""
    max_schema_bytes: Annotated[int, Field(ge=64)] = 64 * 1024
    """The cap on a tool's input or output schema (JSON bytes): larger refuses the tool (R4)."""
    max_schema_depth: Annotated[int, Field(ge=2, le=256)] = 32
    """The cap on a schema's nesting depth (R4)."""
    max_result_chars: Annotated[int, Field(ge=64)] = 8000
    """Result text a model sees, at most (the full result is kept as a blob)."""
    max_result_bytes: Annotated[int, Field(ge=1024)] = 4 * 1024 * 1024
    """The largest result accepted from a server; larger is `result_too_large`."""
    screen_threshold: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 1.0
    """The screener's score at or above which a tool is dropped (R5)."""
    screen_lexical: bool = False
    """A small learned model of poisoned wording beside the screener's rules, for tool definitions only (it can only add a drop; issue 18). Off by default: it catches some wording the rules miss and drops a few honest definitions."""
    auth_failure_limit: Annotated[int, Field(ge=1, le=1_000_000)] = 20
    """`serve --http`: failed authentications from one address within `auth_failure_window_s` before it is refused."""
    auth_failure_window_s: Annotated[float, Field(gt=0, le=86_400)] = 60.0
    """`serve --http`: the window failed authentications are counted in."""
    auth_refusal_s: Annotated[float, Field(ge=0, le=86_400)] = 300.0
    """`serve --http`: how long an address over the limit is refused (429); 0 counts and reports only."""
    redis: Annotated[str, Field(pattern=r"^(redis|rediss|unix)://")] | None = None
    """`redis://`, `rediss://` or `unix://` URL: limits and quotas shared by several processes; unset, in process."""
    approval_ttl_s: Annotated[float, Field(gt=0, le=7 * 86_400)] = 600.0
    """How long a call's approval stays usable."""
    require_tls: bool = False
    """Every server's default for `require_tls`."""
    screen_judge: Annotated[str, Field(max_length=200)] | None = None
    """A model's second opinion on the tools the screener passed (it can only add a drop): `"openai:<model>"` (any OpenAI-compatible server through `screen_judge_base_url`) or `"anthropic:<model>"`; unset, off."""
    screen_judge_base_url: str | None = None
    """The judge's API base URL (`http://` or `https://`), e.g. a local OpenAI-compatible server; unset, the provider's own."""
    screen_judge_api_key: SecretRef | None = None
    """The judge's API key, as `{ secret = "NAME" }` (required for `anthropic:`; a local server that needs none may go without)."""
    screen_judge_timeout_s: Annotated[float, Field(gt=0, le=600)] = 10.0
    """How long one judgement may take; past it the screener's verdict stands (event `mcp.screen_judge_failed`)."""
    screen_judge_max_calls: Annotated[int, Field(ge=1, le=1_000_000)] = 500
    """The most model calls the judge makes in one pool's life (the cost bound; cached verdicts are free); past it the screener's verdict stands."""
    screen_judge_max_chars: Annotated[int, Field(ge=256, le=1_000_000)] = 8000
    """The longest definition (as JSON) the judge is sent; a longer one is cut, and the judge is told so."""

    @field_validator("screen_judge")
    @classmethod
    def _judge_is_a_provider_and_model(cls, value: str | None) -> str | None:
        if value is not None and not _JUDGE_PATTERN.match(value):
            raise ValueError('must be "openai:<model>" or "anthropic:<model>"')
        return value

    @model_validator(mode="after")
    def _judge_settings_fit(self) -> PoolSettings:
        url = self.screen_judge_base_url
        if self.screen_judge is None:
            if url is not None or self.screen_judge_api_key is not None:
                raise ValueError("`screen_judge_base_url` and `screen_judge_api_key` need `screen_judge`")
            return self
        if url is not None and not url.startswith(("http://", "https://")):
            raise ValueError("`screen_judge_base_url` must start with http:// or https://")
        host = urlsplit(url).hostname or "" if url is not None else ""
        plain = url is not None and url.startswith("http://") and self.require_tls
        if plain and plain_http_problem(host, allow_private_network=True) is not None:
            raise ValueError("require_tls refuses an http:// `screen_judge_base_url` other than loopback")
        key = self.screen_judge_api_key
        if key is not None and key.per_principal:
            raise ValueError("`screen_judge_api_key` is the pool's own: it cannot be `per_principal`")
        if key is None and self.screen_judge.startswith("anthropic:"):
            raise ValueError('an anthropic judge needs `screen_judge_api_key = { secret = "NAME" }`')
        return self


class TelemetrySettings(BaseModel):
    """``[telemetry]``: traces, metrics and the call log (all off by default).

    ``traces``/``metrics`` name an exporter (``otlp`` sends OTLP/HTTP to ``otlp_endpoint``);
    ``call_log`` is ``off``, ``stderr``, ``stdout`` or a file path. The standard ``OTEL_*``
    variables (and ``TOOLPOOL_CALL_LOG``, ``TOOLPOOL_CALL_LOG_LEVEL``) override these where the
    CLI or service reads them. A server whose listing exceeds its last admitted one by more
    than ``tools_grew_factor`` (in estimated tokens) raises ``mcp.tools_grew``.
    """

    model_config = _FROZEN
    service_name: Annotated[str, Field(min_length=1, max_length=200)] = "toolpool"
    """The OpenTelemetry service name."""
    traces: Literal["none", "otlp", "console"] = "none"
    """`"otlp"` exports traces (OTLP/HTTP to `otlp_endpoint`), `"console"` prints them, `"none"` is off."""
    metrics: Literal["none", "otlp", "console"] = "none"
    """`"otlp"`, `"console"` or `"none"`, as for traces."""
    otlp_endpoint: str = "http://127.0.0.1:4318"
    """Where OTLP/HTTP export sends traces and metrics."""
    metric_export_interval_s: Annotated[float, Field(gt=0, le=86_400)] = 60.0
    """How often metrics are exported."""
    call_log: Annotated[str, Field(min_length=1, max_length=4096)] = "off"
    """`"off"`, `"stderr"`, `"stdout"` or a file path: one JSON line per call decision."""
    call_log_level: Literal["debug", "info", "warning"] = "info"
    """The level of ok calls and refusals in the call log (upstream faults are warnings)."""
    tools_grew_factor: Annotated[float, Field(gt=1, le=1000)] = 1.5
    """A listing larger than this factor times the last admitted one (in estimated tokens) raises `mcp.tools_grew`."""


class Config(BaseModel):
    """A whole validated configuration; ``source`` is the file it came from."""

    model_config = _FROZEN
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


def read_config(path: str | Path) -> tuple[str, Path]:
    """A configuration file's text and its resolved path, for ``parse_config``.

    Raises:
        ConfigError: the file is missing, unreadable, or not UTF-8.
    """
    source = Path(path).resolve()
    try:
        return source.read_text(encoding="utf-8"), source
    except OSError as exc:
        raise ConfigError(str(path), "", f"cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(str(path), "", "is not UTF-8 text") from exc


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
