"""The trusted configuration's pool-wide tables: ``[pool]`` and ``[telemetry]``.

Re-exported by ``toolpool.config``; the field docstrings are the keys' documentation.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, field_validator, model_validator

from toolpool._config_server import FROZEN, SecretRef
from toolpool._tls_rule import plain_http_problem
from toolpool.runtime_policy import LimitFields

__all__ = ["PoolSettings", "TelemetrySettings"]

_JUDGE_PATTERN = re.compile(r"^(openai|anthropic):[^\s:][^\s]{0,190}$")


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

    model_config = FROZEN
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

    model_config = FROZEN
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
