"""``toolpool serve``: toolpool as an MCP server, on stdio or streamable HTTP.

Over HTTP, an admin token (``$TOOLPOOL_ADMIN_TOKEN`` or ``--admin-token-file``) adds the
admin API (``/admin``) and the web UI (``/ui``) on the same port; without one the service
is MCP only. A metrics token (``$TOOLPOOL_METRICS_TOKEN`` or ``--metrics-token-file``) adds
``/metrics`` for Prometheus. Tokens are never taken from the command line, where ``ps`` would
show them. Traces, metrics and the call log follow ``[telemetry]`` and the ``OTEL_*`` variables.

The process owns its signals here: the first SIGINT or SIGTERM stops serving gracefully, then
the gateway closes (every upstream child reaped, the store closed); a second one, or one that
arrives before serving started, cancels at once (closing is shielded and bounded, so children
are still reaped).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import anyio
import typer

from toolpool.cli._common import (
    DEFAULT_CONFIG,
    ConfigPath,
    actor,
    app,
    fail,
    load,
    run,
    secret_key,
    sole,
    telemetry_for,
)
from toolpool.errors import UsageError
from toolpool.serve import GRACE_S

if TYPE_CHECKING:
    from toolpool.config import Config
    from toolpool.serve import EventHub, Gateway
    from toolpool.telemetry import TelemetryRuntime

__all__ = ["ADMIN_TOKEN_ENV", "METRICS_TOKEN_ENV", "REPLICA_ENV", "serve"]

ADMIN_TOKEN_ENV = "TOOLPOOL_ADMIN_TOKEN"  # noqa: S105 - the name of a variable, not a token
METRICS_TOKEN_ENV = "TOOLPOOL_METRICS_TOKEN"  # noqa: S105 - the name of a variable, not a token
REPLICA_ENV = "TOOLPOOL_REPLICA_ID"
_MIN_ADMIN_TOKEN = 16  # a guessable token would open the whole management plane


@app.command()
def serve(
    stdio: Annotated[bool, typer.Option("--stdio", help="Serve one MCP client on stdin/stdout.")] = False,
    http: Annotated[
        str | None,
        typer.Option(
            "--http", metavar="HOST:PORT", help="Serve streamable HTTP at /mcp (port 0: any free port)."
        ),
    ] = None,
    allow: Annotated[
        list[str] | None,
        typer.Option("--allow", metavar="GLOB", help="--stdio: an action the client may use (default: all)."),
    ] = None,
    admin_token_file: Annotated[
        Path | None,
        typer.Option(
            "--admin-token-file",
            metavar="PATH",
            help=f"--http: serve the admin API (/admin) and web UI (/ui) for the token in this file "
            f"(or set ${ADMIN_TOKEN_ENV}).",
        ),
    ] = None,
    metrics_token_file: Annotated[
        Path | None,
        typer.Option(
            "--metrics-token-file",
            metavar="PATH",
            help=f"--http: serve Prometheus metrics at /metrics for the token in this file "
            f"(or set ${METRICS_TOKEN_ENV}).",
        ),
    ] = None,
    replica_id: Annotated[
        str | None,
        typer.Option(
            "--replica-id",
            metavar="NAME",
            help=f"--http: this replica's name where several serve one store (or set ${REPLICA_ENV}): "
            "in its call records and its session ids, which nginx routes on (deploy/nginx.conf).",
        ),
    ] = None,
    public_host: Annotated[
        list[str] | None,
        typer.Option(
            "--public-host",
            metavar="HOST:PORT",
            help="--http: a name clients reach this service by through a proxy (the Host it "
            "forwards), accepted beside the listen address.",
        ),
    ] = None,
    grace_s: Annotated[
        float,
        typer.Option(
            "--grace-s",
            metavar="SECONDS",
            min=0,
            max=3600,
            help="--http: on SIGTERM, how long calls in flight may take to finish.",
        ),
    ] = GRACE_S,
    sdk_front: Annotated[
        bool,
        typer.Option(
            "--sdk-front",
            hidden=True,
            help="Answer every message through the SDK's server, the hot methods too (for comparing).",
        ),
    ] = False,
    config: ConfigPath = DEFAULT_CONFIG,
) -> None:
    """Serve the guarded pool to MCP clients: --stdio for one client on stdin/stdout, or
    --http HOST:PORT for clients with a bearer token (toolpool tokens add), with the admin
    API and web UI beside it when an admin token is given."""
    # Here, not at the top: the service and the SDK take seconds to import, and only `serve` needs them.
    from toolpool.serve import (
        HTTP_PATH,
        AdminPlane,
        HttpAddress,
        MetricsPlane,
        check_replica_name,
        listen,
        serve_http,
        serve_stdio,
    )
    from toolpool.tickets import Ticket

    if stdio == (http is not None):
        fail("choose one of --stdio and --http HOST:PORT")
    if http is not None and allow:
        fail("--allow applies to --stdio; over HTTP each client's token says what it may use")
    if stdio and (admin_token_file is not None or metrics_token_file is not None):
        fail("the admin API, web UI and metrics are served over --http only")
    if stdio and (replica_id is not None or public_host):
        fail("--replica-id and --public-host apply to --http")
    replica = replica_id if replica_id is not None else (os.environ.get(REPLICA_ENV) or None)
    if http is not None and replica is not None:
        try:
            check_replica_name(replica)
        except UsageError as error:
            fail(str(error))
    public_hosts = tuple(_public_host(value) for value in public_host or ())
    admin_token = _token(admin_token_file, ADMIN_TOKEN_ENV, "admin") if http is not None else None
    metrics_token = _token(metrics_token_file, METRICS_TOKEN_ENV, "metrics") if http is not None else None
    loaded = load(config)
    _log_to_stderr()
    telemetry = telemetry_for(loaded, prometheus=metrics_token is not None)
    if stdio:
        ticket = Ticket.allow(*(allow or ["*"]), principal=actor())

        async def on_stdio(gateway: Gateway, stop: anyio.Event, _hub: EventHub) -> None:
            _report(f"serving MCP on stdio for {ticket.principal} ({', '.join(ticket.actions)})")
            await serve_stdio(gateway, ticket.principal, ticket, stop, lean=not sdk_front)

        _serve(loaded, on_stdio, telemetry, None)
        return
    assert http is not None
    sock = listen(HttpAddress.parse(http))

    async def on_http(gateway: Gateway, stop: anyio.Event, hub: EventHub) -> None:
        admin = None if admin_token is None else AdminPlane(admin_token, hub)
        bridge = telemetry.prometheus
        metrics = (
            None if metrics_token is None or bridge is None else MetricsPlane(metrics_token, bridge.render)
        )

        def on_ready(url: str) -> None:
            if admin is not None:
                base = url.removesuffix(HTTP_PATH)
                _report(f"admin API on {base}/admin, web UI on {base}/ui")
            else:
                _report(f"no admin token (${ADMIN_TOKEN_ENV} or --admin-token-file): MCP only")
            if metrics is not None:
                _report(f"Prometheus metrics on {url.removesuffix(HTTP_PATH)}/metrics")
            _report(f"serving MCP on {url}")  # last: the line that says the service is up

        await serve_http(
            gateway,
            sock,
            stop,
            on_ready,
            admin=admin,
            metrics=metrics,
            lean=not sdk_front,
            grace_s=grace_s,
            public_hosts=public_hosts,
        )

    with sock:
        _serve(loaded, on_http, telemetry, replica)


def _public_host(value: str) -> str:
    """``HOST:PORT`` as a Host header carries it (one line on anything else)."""
    from toolpool.serve import HttpAddress

    try:
        address = HttpAddress.parse(value)
    except UsageError as error:
        fail(f"--public-host: {error}")
    shown = f"[{address.host}]" if ":" in address.host else address.host
    return f"{shown}:{address.port}".lower()


def _token(path: Path | None, variable: str, kind: str) -> str | None:
    """An operator's token: from the file if one is named, else from the environment."""
    if path is None:
        text, source = os.environ.get(variable, "").strip(), f"${variable}"
        if not text:
            return None
    else:
        try:
            text, source = path.read_text(encoding="utf-8").strip(), str(path)
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"cannot read the {kind} token file {path}: {getattr(exc, 'strerror', None) or exc}")
    if len(text) < _MIN_ADMIN_TOKEN:
        fail(f"the {kind} token in {source} is shorter than {_MIN_ADMIN_TOKEN} characters")
    return text


def _serve(
    config: Config,
    body: Callable[[Gateway, anyio.Event, EventHub], Awaitable[None]],
    telemetry: TelemetryRuntime,
    replica: str | None,
) -> None:
    from toolpool.serve import EventHub, Gateway, call_event

    async def main() -> None:
        hub = EventHub()
        async with anyio.create_task_group() as tasks:
            stopper = _Stopper(tasks.cancel_scope)
            tasks.start_soon(stopper.watch)
            gateway = Gateway(
                config,
                secret_key=secret_key(config),
                on_report=_report,
                on_call=lambda record: hub.publish(call_event(record)),
                telemetry=telemetry.telemetry,
                replica=replica,
            )
            async with gateway:
                stopper.phase = "serving"
                try:
                    await body(gateway, stopper.stop, hub)
                finally:
                    stopper.phase = "closing"
            tasks.cancel_scope.cancel()

    try:
        run(main)
    except BaseExceptionGroup as group:
        raise sole(group) from None
    finally:
        telemetry.close()  # after the gateway: its last spans and metrics are sent


class _Stopper:
    """SIGINT/SIGTERM: before serving, cancel; while serving, stop gracefully (a second one
    cancels); while closing, nothing more to do (closing is shielded and bounded). uvicorn
    sees the signals too while it serves, and raises them again once it has stopped: they
    arrive here while closing."""

    def __init__(self, scope: anyio.CancelScope) -> None:
        self.stop = anyio.Event()
        self.phase = "starting"
        self._scope = scope

    async def watch(self) -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for _ in signals:
                if self.phase == "starting" or (self.phase == "serving" and self.stop.is_set()):
                    self._scope.cancel()
                self.stop.set()


def _log_to_stderr() -> None:
    """The service's log lines (failed authentication, audit trouble) go where its reports go."""
    logger = logging.getLogger("toolpool")
    if not any(getattr(handler, "toolpool_cli", False) for handler in logger.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("toolpool: %(message)s"))
        handler.toolpool_cli = True  # type: ignore[attr-defined]
        logger.addHandler(handler)
        logger.setLevel(logging.WARNING)
        logger.propagate = False


def _report(line: str) -> None:
    sys.stderr.write(f"toolpool: {line}\n")
    sys.stderr.flush()
