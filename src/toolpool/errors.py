"""Every exception toolpool raises, and the Envelope codes, in one place.

Blame is split three ways, because each needs a different reaction::

    ToolpoolError
    ├── UsageError                  the caller did it: fix the call or the config
    │   ├── ConfigError             the TOML file is invalid (names the file and the key)
    │   ├── UnknownAlias            connect/disconnect named an alias the config lacks (R1)
    │   ├── MissingSecret           the config refers to a secret that was not provided
    │   │   └── CredentialMissing   the calling principal has no value of a per-principal secret
    │   ├── SandboxUnavailable      the config asks for a sandbox this machine cannot run
    │   ├── MissingExtra            an integration's framework is not installed (also an ImportError)
    │   └── PoolClosed              the pool was used outside ``async with`` or after aclose()
    ├── PolicyRefusal               local policy refused it: working as intended
    │   ├── ConnectionRefused       an admission rule (R2-R4) refused a whole connection
    │   └── AddressBlocked          the SSRF guard refused a remote server's address (R14)
    └── UpstreamError               the MCP server misbehaved or went away
        ├── UpstreamUnavailable     could not start, reach or handshake with the server
        ├── UpstreamTimeout         a request ran past its timeout
        ├── UpstreamConnectionLost  the process exited or the transport broke
        ├── UpstreamRemoteError     the server answered with an error
        ├── UpstreamProtocolError   the server sent something that is not valid MCP
        └── ModelError              the model provider failed (after its retries)
            ├── ModelUnavailable    network down, 5xx or 429 after retries, a reply we cannot read
            ├── ModelTimeout        the provider did not answer in time
            └── ModelRejected       the provider refused the request (4xx: bad key, bad model)

Upstream errors carry the server's own text only in ``detail``, which is for the audit log
(after redaction) and never for a model; ``str()`` of every exception here is local text.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "APPROVAL_PENDING",
    "CIRCUIT_OPEN",
    "CREDENTIAL_MISSING",
    "DENIED",
    "ENVELOPE_CODES",
    "INVALID_ARGUMENTS",
    "LIMITS_UNAVAILABLE",
    "MCP_CONNECTION_LOST",
    "MCP_REMOTE_ERROR",
    "MCP_TIMEOUT",
    "OK",
    "QUOTA_EXCEEDED",
    "RATE_LIMITED",
    "RESULT_TOO_LARGE",
    "SERVER_CHANGED",
    "SHARED_STATE_UNAVAILABLE",
    "TAINTED_ARGUMENT",
    "TICKET_EXPIRED",
    "TOOL_DISABLED",
    "UNKNOWN_TOOL",
    "AddressBlocked",
    "ConfigError",
    "ConnectionRefused",
    "CredentialMissing",
    "MissingExtra",
    "MissingSecret",
    "ModelError",
    "ModelRejected",
    "ModelTimeout",
    "ModelUnavailable",
    "PolicyRefusal",
    "PoolClosed",
    "SandboxUnavailable",
    "ToolpoolError",
    "UnknownAlias",
    "UpstreamConnectionLost",
    "UpstreamError",
    "UpstreamProtocolError",
    "UpstreamRemoteError",
    "UpstreamTimeout",
    "UpstreamUnavailable",
    "UsageError",
]

# Envelope codes, in the order of the call pipeline's gates (DESIGN.md).
OK: Final = "ok"
UNKNOWN_TOOL: Final = "unknown_tool"  # gate 1: not in this request's snapshot
# gate 1 (R15): the session's release approved another command or URL behind this tool's alias
SERVER_CHANGED: Final = "server_changed"
MCP_CONNECTION_LOST: Final = "mcp_connection_lost"  # gate 2 and gate 8
TOOL_DISABLED: Final = "tool_disabled"  # gate 3
DENIED: Final = "denied"  # gate 4
TICKET_EXPIRED: Final = "ticket_expired"  # gate 4
INVALID_ARGUMENTS: Final = "invalid_arguments"  # gate 5
TAINTED_ARGUMENT: Final = "tainted_argument"  # gate 6
# gate 6 with `[pool] redis`: a write cannot be checked against the taint other replicas saw
SHARED_STATE_UNAVAILABLE: Final = "shared_state_unavailable"
# Between gates 6 and 7: approval first, then limits; a refused or pending call spends no budget.
APPROVAL_PENDING: Final = "approval_pending"  # needs a person's approval (its id in `_meta`)
RATE_LIMITED: Final = "rate_limited"  # over a rate or concurrency limit (the wait in `_meta`)
QUOTA_EXCEEDED: Final = "quota_exceeded"  # the principal's quota for this period is spent
LIMITS_UNAVAILABLE: Final = "limits_unavailable"  # Redis unreachable and the limit fails closed
# gate 2, for a server with per-principal secrets: the calling principal has none of its own
CREDENTIAL_MISSING: Final = "credential_missing"
CIRCUIT_OPEN: Final = "circuit_open"  # gate 7
MCP_REMOTE_ERROR: Final = "mcp_remote_error"  # gate 8: connection kept
MCP_TIMEOUT: Final = "mcp_timeout"  # gate 8: connection dropped
RESULT_TOO_LARGE: Final = "result_too_large"  # gate 9: over max_result_bytes, discarded; connection kept

ENVELOPE_CODES: Final = frozenset(
    {
        OK,
        UNKNOWN_TOOL,
        SERVER_CHANGED,
        MCP_CONNECTION_LOST,
        TOOL_DISABLED,
        DENIED,
        TICKET_EXPIRED,
        INVALID_ARGUMENTS,
        TAINTED_ARGUMENT,
        SHARED_STATE_UNAVAILABLE,
        APPROVAL_PENDING,
        RATE_LIMITED,
        QUOTA_EXCEEDED,
        LIMITS_UNAVAILABLE,
        CREDENTIAL_MISSING,
        CIRCUIT_OPEN,
        MCP_REMOTE_ERROR,
        MCP_TIMEOUT,
        RESULT_TOO_LARGE,
    }
)


class ToolpoolError(Exception):
    """Base of every error toolpool raises on purpose."""


class UsageError(ToolpoolError):
    """The caller did it: a bad config, an unknown name, a closed pool."""


class ConfigError(UsageError):
    """The configuration file is invalid; the message names the file and the key."""

    def __init__(self, path: str, key: str, problem: str, *, line: int | None = None) -> None:
        self.path = path
        self.key = key
        self.problem = problem
        self.line = line
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {key}: {problem}" if key else f"{where}: {problem}")


class UnknownAlias(UsageError):
    """An alias that the trusted configuration does not name; nothing was started (R1)."""

    def __init__(self, alias: str) -> None:
        self.alias = alias
        super().__init__(f"unknown alias {alias!r}: only servers named in the configuration can connect")


class MissingSecret(UsageError):
    """A ``{ secret = "NAME" }`` value names a secret that is not available."""

    def __init__(self, alias: str, name: str) -> None:
        self.alias = alias
        self.name = name
        super().__init__(f"server {alias!r} needs secret {name!r}, which is not set")


class CredentialMissing(MissingSecret):
    """A ``per_principal`` secret has no value for the calling principal (``principal`` is
    None for a call that names none): gate 2 answers ``credential_missing``."""

    def __init__(self, alias: str, name: str, principal: str | None) -> None:
        self.principal = principal
        super().__init__(alias, name)
        if principal is None:
            message = (
                f"no credential for {alias}: its calls need a principal with one of their own "
                f"(toolpool secrets set {name} --principal NAME)"
            )
        else:
            message = (
                f"no credential of yours for {alias}: toolpool secrets set {name} --principal {principal}"
            )
        self.args = (message,)


class SandboxUnavailable(UsageError):
    """``sandbox = "bwrap"`` was asked for, but bubblewrap cannot run here; nothing was started."""

    def __init__(self, alias: str, problem: str) -> None:
        self.alias = alias
        self.problem = problem
        super().__init__(f"server {alias!r} needs the bwrap sandbox, which cannot run here: {problem}")


class MissingExtra(UsageError, ImportError):
    """A ``toolpool.integrations`` module was imported without its framework: the message names
    the extra that installs it (``pip install 'toolpool[pydantic-ai]'``)."""

    def __init__(self, module: str, extra: str) -> None:
        self.module = module
        self.extra = extra
        super().__init__(f"{module} needs its framework: pip install 'toolpool[{extra}]'")


class PoolClosed(UsageError):
    """The pool is not open: use it inside ``async with Pool(config)``; it cannot reopen."""


class PolicyRefusal(ToolpoolError):
    """Local policy refused the operation; this is the guard working, not a fault."""


class ConnectionRefused(PolicyRefusal):
    """An admission rule refused a whole connection; it was closed and nothing was exposed.

    ``reasons`` holds one local, model-safe line per broken rule, each starting with the
    rule's number (``"R2: ..."``).
    """

    def __init__(self, alias: str, reasons: tuple[str, ...]) -> None:
        self.alias = alias
        self.reasons = reasons
        super().__init__(f"connection to {alias!r} refused: " + "; ".join(reasons))


class AddressBlocked(PolicyRefusal):
    """The SSRF guard refused where a remote server's URL points (R14)."""

    def __init__(self, alias: str, problem: str) -> None:
        self.alias = alias
        self.problem = problem
        super().__init__(f"server {alias!r} refused by the SSRF guard: {problem}")


class UpstreamError(ToolpoolError):
    """The upstream server did it. ``detail`` holds upstream text for the audit log only."""

    envelope_code: str = MCP_CONNECTION_LOST

    def __init__(self, alias: str, message: str, *, detail: str = "") -> None:
        self.alias = alias
        self.detail = detail
        super().__init__(f"{alias}: {message}")


class UpstreamUnavailable(UpstreamError):
    """The server could not be started, reached or initialized."""


class UpstreamTimeout(UpstreamError):
    """A request to the server ran past its timeout; the connection is dropped."""

    envelope_code = MCP_TIMEOUT


class UpstreamConnectionLost(UpstreamError):
    """The server process exited or its transport broke; the connection is dropped."""


class UpstreamRemoteError(UpstreamError):
    """The server answered with an error; the connection stays up."""

    envelope_code = MCP_REMOTE_ERROR


class UpstreamProtocolError(UpstreamError):
    """The server sent something that is not valid MCP (a malformed result or page)."""

    envelope_code = MCP_REMOTE_ERROR


class ModelError(UpstreamError):
    """The model provider failed. ``alias`` is the model's name (``openai:gpt-4.1``);
    ``detail`` keeps the provider's own words for logs, never for another model."""


class ModelUnavailable(ModelError):
    """The provider could not be reached, kept failing (5xx, 429) after the retries, or sent a
    reply that cannot be read."""


class ModelTimeout(ModelError):
    """The provider did not answer within the request timeout (after the retries)."""


class ModelRejected(ModelError):
    """The provider refused the request itself (4xx other than 429): a bad key, an unknown
    model, a malformed request. Retrying does not help."""

    def __init__(self, alias: str, message: str, *, status: int, detail: str = "") -> None:
        self.status = status
        super().__init__(alias, message, detail=detail)
