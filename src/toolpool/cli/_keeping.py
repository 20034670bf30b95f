"""Commands that keep things: the first setup, secrets, the audit log and call statistics."""

from __future__ import annotations

import getpass
import sys
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from toolpool.cli._common import (
    DEFAULT_CONFIG,
    AsJson,
    ConfigPath,
    actor,
    app,
    cell,
    err,
    fail,
    key_file,
    load,
    open_store,
    out,
    print_json,
    printable,
    secret_key,
)

if TYPE_CHECKING:  # the store is imported by the commands that open it (cli._common says why)
    from toolpool.store import AuditCheck, AuditEvent

__all__ = ["audit", "init", "secrets_delete", "secrets_list", "secrets_set", "stats"]

secrets_app = typer.Typer(
    help='Secrets for `{ secret = "NAME" }` config values, encrypted at rest.', no_args_is_help=True
)
app.add_typer(secrets_app, name="secrets")

_STARTER = """\
# A working toolpool configuration, written by `toolpool init`, on toolpool's demo servers.
# Tools start disabled: import them, look, then enable what you trust.
#   toolpool import demo_alpha && toolpool tools && toolpool enable demo_alpha lookup

[pool]
store = "sqlite:///toolpool.db"     # beside this file; or postgresql+psycopg://...

[servers.demo_alpha]
transport = "stdio"
command = "python"                  # the Python that runs toolpool
args = ["-m", "toolpool.demo", "alpha"]
env = { PYTHONCOERCECLOCALE = "0" } # exactly the server's environment
call_timeout_s = 10

[servers.demo_alpha.tools.lookup]
action = "demo.lookup"
effect = "read"
resource = "{key}"

[servers.demo_alpha.tools.echo]
action = "demo.echo"
effect = "read"

[servers.demo_alpha.tools.process_info]
action = false                      # reports the server's environment: never exposed

[servers.demo_beta]
transport = "stdio"
command = "python"
args = ["-m", "toolpool.demo", "beta"]
env = { PYTHONCOERCECLOCALE = "0" }
call_timeout_s = 10

[servers.demo_beta.tools.lookup]
action = "beta.lookup"
effect = "read"

[servers.demo_beta.tools.write_note]
action = "beta.write_note"
effect = "write"                    # needs `toolpool approve-write demo_beta write_note --by ... --reason ...`
"""


@app.command()
def init(config: ConfigPath = DEFAULT_CONFIG, as_json: AsJson = False) -> None:
    """Write a working toolpool.toml (demo servers), create the secret key and the store."""
    from toolpool.config import parse_config
    from toolpool.store import SecretKey, Store  # cli._common says why here

    if config.exists():
        fail(f"{config} already exists; nothing was changed")
    parsed = parse_config(_STARTER, config.resolve())
    key_path = key_file(parsed)
    if key_path.exists():
        fail(f"{key_path} already exists; nothing was changed")
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(_STARTER, encoding="utf-8")
    key = SecretKey.generate()
    key.write_file(key_path)
    with Store.open(parsed.store_url, key=key) as store:
        store.tools.sync_policies({alias: spec.tools for alias, spec in parsed.servers.items()})
        store.audit.audit(actor(), "pool.init", str(config), {"store": store.url_for_display})
    flag = "" if config == DEFAULT_CONFIG else f" --config {config}"
    steps = [
        f"toolpool import demo_alpha{flag}",
        f"toolpool tools{flag}",
        f"toolpool enable demo_alpha lookup{flag}",
        f'toolpool call demo_alpha lookup --args \'{{"key": "k1"}}\'{flag}',
        f"toolpool audit --verify{flag}",
    ]
    if as_json:
        print_json({"config": str(config), "key": str(key_path), "store": parsed.store_url, "next": steps})
        return
    out.print(
        f"Wrote {config}, the secret key {key_path} (mode 0600) and the store {parsed.store_url}.",
        highlight=False,
    )
    out.print("Next:\n" + "\n".join(f"  {step}" for step in steps), highlight=False)


Principal = Annotated[
    str | None,
    typer.Option(
        "--principal",
        help="The principal whose own value this is (for `{ secret = ..., per_principal = true }`); "
        "without it, the pool-wide value.",
    ),
]


@secrets_app.command("set")
def secrets_set(
    name: Annotated[str, typer.Argument(help='The secret\'s name, as `{ secret = "NAME" }` uses it.')],
    principal: Principal = None,
    config: ConfigPath = DEFAULT_CONFIG,
    as_json: AsJson = False,
) -> None:
    """Store a secret; its value is read from stdin (never from the command line)."""
    loaded = load(config)
    if principal is not None and not principal:
        fail("--principal needs a name")
    value = getpass.getpass(f"value of {name}: ") if sys.stdin.isatty() else sys.stdin.read()
    value = value.removesuffix("\n").removesuffix("\r")
    if not value:
        fail("the secret's value is empty (pipe it in on stdin)")
    with open_store(loaded) as store:
        store.secrets.set_secret(name, value, actor(), principal=principal or "")
    owner = f" for principal {principal!r}" if principal else ""
    if as_json:
        print_json({"secret": name, "principal": principal or "", "stored": True})
    else:
        out.print(f"stored secret {name!r}{owner} (encrypted)", highlight=False)


@secrets_app.command("list")
def secrets_list(config: ConfigPath = DEFAULT_CONFIG, as_json: AsJson = False) -> None:
    """List the stored secrets by name and principal (never their values)."""
    loaded = load(config)
    with open_store(loaded) as store:
        entries = store.secrets.secret_entries()
    if as_json:
        print_json([{"name": name, "principal": principal} for name, principal in entries])
        return
    if not entries:
        out.print("no secrets stored", highlight=False)
        return
    table = Table("name", "principal")
    for name, principal in entries:
        table.add_row(cell(name), cell(principal) if principal else "(pool-wide)")
    out.print(table)


@secrets_app.command("delete")
def secrets_delete(
    name: Annotated[str, typer.Argument(help="The secret's name.")],
    principal: Principal = None,
    config: ConfigPath = DEFAULT_CONFIG,
    as_json: AsJson = False,
) -> None:
    """Delete a secret: the pool-wide value, or with --principal that principal's own."""
    loaded = load(config)
    with open_store(loaded) as store:
        store.secrets.delete_secret(name, actor(), principal=principal or "")
    owner = f" for principal {principal!r}" if principal else ""
    if as_json:
        print_json({"secret": name, "principal": principal or "", "deleted": True})
    else:
        out.print(f"deleted secret {name!r}{owner}", highlight=False)


@app.command()
def audit(
    verify: Annotated[
        bool,
        typer.Option("--verify", help="Check the hash chain (and MACs, with the key); exit 1 if broken."),
    ] = False,
    limit: Annotated[int, typer.Option("--limit", help="How many of the latest events to show.")] = 20,
    config: ConfigPath = DEFAULT_CONFIG,
    as_json: AsJson = False,
) -> None:
    """Show the latest audit events, or with --verify name the first edited, inserted, deleted,
    reordered, renumbered, appended or malformed event.

    The store is opened as it is, without syncing the config first: reading or checking the
    log writes nothing into it. A malformed row is listed with one line saying what is wrong.
    """
    from toolpool.store import Store

    loaded = load(config)
    with Store.open(loaded.store_url, key=secret_key(loaded)) as store:
        if verify:
            check = store.audit.verify_audit()
        else:
            events = store.audit.audit_events()[-limit:] if limit > 0 else []
    if verify:
        _report_check(check, as_json)
        return
    if as_json:
        print_json([_event_json(event) for event in events])
    else:
        table = Table("id", "at", "actor", "action", "resource")
        for event in events:
            at = "?" if event.malformed else event.at.isoformat(timespec="seconds")
            table.add_row(
                str(event.id), at, *(cell(text) for text in (event.actor, event.action, event.resource))
            )
        out.print(table)
    for event in events:
        if event.malformed:
            err.print(cell(f"toolpool: event {event.id} is malformed: {event.malformed}"), soft_wrap=True)


def _report_check(check: AuditCheck, as_json: bool) -> None:
    if as_json:
        print_json(
            {
                "ok": check.ok,
                "checked": check.checked,
                "first_bad_id": check.first_bad_id,
                "problem": check.problem,
                "reason": check.reason,
                "keyed_from": check.keyed_from,
                "with_key": check.with_key,
                "head_hash": check.head_hash,
            }
        )
    if not check.ok:
        fail(printable(check.describe()))
    if not as_json:
        out.print(cell(check.describe()))


def _event_json(event: AuditEvent) -> dict[str, object]:
    return {
        "id": event.id,
        "at": None if event.malformed else event.at,
        "actor": event.actor,
        "action": event.action,
        "resource": event.resource,
        "detail": event.detail,
        "malformed": event.malformed,
    }


@app.command()
def stats(config: ConfigPath = DEFAULT_CONFIG, as_json: AsJson = False) -> None:
    """Calls, error codes and latency per alias and tool, from the call records."""
    loaded = load(config)
    with open_store(loaded) as store:
        rows = store.calls.call_stats()
    if as_json:
        print_json(
            [
                {
                    "alias": r.alias,
                    "tool": r.tool,
                    "calls": r.calls,
                    "codes": dict(r.codes),
                    "p50_ms": r.p50_ms,
                    "p95_ms": r.p95_ms,
                }
                for r in rows
            ]
        )
        return
    table = Table("alias", "tool", "calls", "codes", "p50 ms", "p95 ms")
    for row in rows:
        codes = ", ".join(f"{code} {count}" for code, count in sorted(row.codes.items()))
        table.add_row(row.alias, row.tool, str(row.calls), codes, f"{row.p50_ms:.1f}", f"{row.p95_ms:.1f}")
    out.print(table)
