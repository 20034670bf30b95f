"""Commands of the management plane: import what a server publishes, see and change states.

Imported tools start disabled (R9): ``enable`` turns on a read tool, ``approve-write`` a
write tool with who and why. Every change is audited and makes a new release (R15).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import typer
from rich.table import Table

from toolpool.cli._beside import config_hash
from toolpool.cli._common import (
    DEFAULT_CONFIG,
    AsJson,
    ConfigPath,
    actor,
    app,
    clip,
    collector_paused,
    err,
    fail,
    load,
    open_store,
    out,
    parse,
    print_json,
    read,
    run,
    secret_key,
    secret_key_beside,
)
from toolpool.cli._rows import print_columns, print_record_columns
from toolpool.errors import ConnectionRefused

if TYPE_CHECKING:  # the store and the listing are imported by the commands (cli._common says why)
    from toolpool.cli._listing import ConfigListing
    from toolpool.config import Config
    from toolpool.store import ImportedTool, ListedState, SecretKey, Store, ToolState
    from toolpool.store._sqlite_read import Shown

__all__ = ["approve_write", "disable", "enable", "import_", "tools"]

Alias = Annotated[str, typer.Argument(help="The server's alias in the config.")]
Tool = Annotated[str, typer.Argument(help="The tool's name as the server publishes it.")]


@app.command("import")
def import_(alias: Alias, config: ConfigPath = DEFAULT_CONFIG, as_json: AsJson = False) -> None:
    """Connect ALIAS, list and vet its tools, screen them, and store them DISABLED with pins."""
    from toolpool.importing import import_alias  # the pool and the SDK: only this command needs them
    from toolpool.pool import Pool

    text, source = read(config)
    loaded = parse(text, source)
    if alias not in loaded.servers:
        fail(f"unknown alias {alias!r}: only servers named in the configuration can be imported")

    async def inspect_and_record() -> list[dict[str, Any]]:
        # Progress goes to stderr, line by line (a spinner shows nothing in a log or a pipe);
        # stdout keeps only the result, so --json stays parseable.
        started = time.monotonic()
        with open_store(loaded, config_hash(text)) as store:
            async with Pool(loaded, store=store, secret_key=secret_key(loaded)) as pool:
                _progress(f"import {alias}: starting or reaching the server, listing and vetting its tools")
                result = await import_alias(pool, store, alias, actor())
                _progress(
                    f"import {alias}: {len(result.tools)} tools listed, screened and stored "
                    f"({time.monotonic() - started:.1f} s)"
                )
            return _import_rows(loaded, alias, store, list(result.tools), set(result.changed))

    try:
        rows = run(inspect_and_record)
    except ConnectionRefused as refused:
        fail(f"import of {alias!r} refused: " + "; ".join(refused.reasons))
    if as_json:
        print_json(rows)
        return
    table = Table(
        "tool", "effect", "verdict", "state", "reasons", title=f"{alias}: {len(rows)} tools imported"
    )
    for row in rows:
        table.add_row(
            row["tool"], row["effect"], row["verdict"], row["state"], clip("; ".join(row["reasons"]), 80)
        )
    out.print(table)
    out.print(
        "Imported tools start disabled: `toolpool enable ALIAS TOOL` (read tools) or "
        "`toolpool approve-write ALIAS TOOL --by NAME --reason TEXT` (write tools)."
    )


def _progress(line: str) -> None:
    err.print(f"toolpool: {line}", highlight=False, soft_wrap=True, markup=False)


@app.command()
def tools(config: ConfigPath = DEFAULT_CONFIG, as_json: AsJson = False) -> None:
    """List every tool the config names, with its action, effect, state, verdict and pin."""
    # At 20,000 servers this must not read 13 MB of TOML, nor sync, when nothing changed: the
    # listing comes from the cache beside the config when it holds this very text, and the
    # sync is skipped when the store already holds it. After another process's change, the
    # cache's policies are synced, writing only the aliases that differ. The states are
    # always read afresh.
    text, source = read(config)
    text_hash = config_hash(text)
    with collector_paused():
        listing = _listing_of(text, source, text_hash)
        _print_listing(listing, _states_of(listing, secret_key_beside(source)), as_json)


def _states_of(listing: ConfigListing, key: SecretKey | None) -> Mapping[tuple[str, str], Shown]:
    """What the listing shows of every tool the store knows, the store synced with the listing
    first if it is not. A SQLite store that is synced already is read on the driver alone
    (``store._sqlite_read``: no SQLAlchemy, and only the columns shown)."""
    from toolpool.store._sqlite_read import shown_of, synced_shown

    shown = synced_shown(listing.store_url, listing.config_hash)
    if shown is not None:
        return shown
    from toolpool.store import Store

    with Store.open(listing.store_url, key=key) as store:
        states: Mapping[tuple[str, str], ListedState]
        if store.tools.is_synced(listing.config_hash):
            states = store.tools.listed_states()
        else:
            states = store.tools.sync_and_list(listing.policies(), config_hash=listing.config_hash)
    return {tool: shown_of(state) for tool, state in states.items()}


def _print_listing(listing: ConfigListing, shown: Mapping[tuple[str, str], Shown], as_json: bool) -> None:
    """The table, or ``--json`` (``_row`` of every tool), built column by column: at 100,000
    tools a Python call per row and cell was most of the command's time."""
    aliases, names, actions, effects = _first_columns(listing.tools)
    found = list(map(shown.get, zip(aliases, names, strict=True)))
    states = [
        "forbidden" if action is False else "not imported" if row is None else _STATE_CELLS[row[0] & 1]
        for action, row in zip(actions, found, strict=True)
    ]
    effects = [
        "forbidden" if action is False else effect for action, effect in zip(actions, effects, strict=True)
    ]
    pins = ["-" if row is None else _PIN_CELLS[row[0] >> 1] for row in found]
    if as_json:
        columns: list[Sequence[Any]] = [aliases, names, list(map("mcp__{}__{}".format, aliases, names))]
        columns += [[action or None for action in actions], effects, states]
        columns += [[None if row is None else row[1] for row in found]]
        columns += [[() if row is None else row[2] for row in found], pins]
        columns += [[None if row is None else row[3] for row in found]]
        print_record_columns(_JSON_KEYS, columns)
        return
    verdicts = ["-" if row is None else row[1] or "-" for row in found]
    actions = [action or "-" for action in actions]
    print_columns(_HEADERS, [aliases, names, actions, effects, states, verdicts, pins])


_HEADERS = ("alias", "tool", "action", "effect", "state", "verdict", "pin")
_JSON_KEYS = (
    "alias",
    "tool",
    "local_name",
    "action",
    "effect",
    "state",
    "verdict",
    "reasons",
    "pin",
    "write_approved_by",
)
_STATE_CELLS = ("disabled", "enabled")  # by a Shown code's first bit
_PIN_CELLS = ("-", "pinned", "changed")  # by pin_code


def _first_columns(tools: Sequence[Sequence[Any]]) -> tuple[list[str], list[str], list[Any], list[str]]:
    """The listing's alias, name, action and effect columns."""
    # Four passes of one subscript each: the fewest objects built (zip's would be a tuple per row).
    return (
        [row[0] for row in tools],
        [row[1] for row in tools],
        [row[2] for row in tools],
        [row[3] for row in tools],
    )


@app.command()
def enable(alias: Alias, tool: Tool, config: ConfigPath = DEFAULT_CONFIG, as_json: AsJson = False) -> None:
    """Enable a read tool (a write tool needs approve-write)."""
    _change(config, alias, tool, as_json, lambda store: store.tools.enable(alias, tool, actor()))


@app.command()
def disable(alias: Alias, tool: Tool, config: ConfigPath = DEFAULT_CONFIG, as_json: AsJson = False) -> None:
    """Disable a tool; running pools refuse it from their next call on (gate 3)."""
    _change(config, alias, tool, as_json, lambda store: store.tools.disable(alias, tool, actor()))


@app.command("approve-write")
def approve_write(
    alias: Alias,
    tool: Tool,
    by: Annotated[str, typer.Option("--by", help="Who approves this write tool.")],
    reason: Annotated[str, typer.Option("--reason", help="Why it may write.")],
    config: ConfigPath = DEFAULT_CONFIG,
    as_json: AsJson = False,
) -> None:
    """Approve and enable a write tool, recording who approved it and why (R9). The tool must
    write and have been imported: what is approved is a definition someone has seen."""

    def approve(store: Store) -> None:
        refusal = _approval_refusal(load(config), store, alias, tool)
        if refusal is not None:
            store.audit.audit(actor(), "tool.approve_write_refused", f"{alias}/{tool}", {"reason": refusal})
            fail(refusal)
        store.tools.approve_write(alias, tool, by, reason, actor())

    _change(config, alias, tool, as_json, approve)


def _approval_refusal(config: Config, store: Store, alias: str, tool: str) -> str | None:
    policy = config.servers[alias].tools[tool]
    if not policy.forbidden and policy.effect == "read":
        return (
            f'{alias}/{tool} reads (effect = "read"): it needs no write approval; '
            f"`toolpool enable {alias} {tool}` turns it on"
        )
    state = next((s for s in store.tools.tool_states(alias) if s.name == tool), None)
    if not policy.forbidden and (state is None or state.current_hash is None):
        return f"{alias}/{tool} was never imported: `toolpool import {alias}` first, so the approval is of a definition you have seen"
    return None


def _change(config_path: Path, alias: str, tool: str, as_json: bool, change: Callable[[Store], None]) -> None:
    # Like ``tools``: the configuration's listing from the cache beside it when it holds this
    # very text, and a sync of only what differs, so a change at 20,000 servers does not read
    # 13 MB of TOML (the store's state is always read afresh).
    from toolpool.store import Store

    text, source = read(config_path)
    text_hash = config_hash(text)
    with collector_paused():
        listing = _listing_of(text, source, text_hash)
        row = next((row for row in listing.tools if row[0] == alias and row[1] == tool), None)
        if row is None:
            fail(f"{alias}/{tool} is not in the configuration")
            return
        with Store.open(listing.store_url, key=secret_key_beside(source)) as store:
            if not store.tools.is_synced(text_hash):
                store.tools.sync_and_list(listing.policies(), config_hash=text_hash)
            change(store)
            state = next(s for s in store.tools.tool_states(alias) if s.name == tool)
            release = store.releases.current_release().number
    shown = _row(alias, tool, row[2], row[3], state) | {"release": release}
    if as_json:
        print_json(shown)
    else:
        out.print(f"{alias}/{tool}: {shown['state']} (release {release})", highlight=False)


def _listing_of(text: str, source: Path, text_hash: str) -> ConfigListing:
    """The configuration's listing: the cache's when it holds this text, else parsed (and kept)."""
    from toolpool.cli._listing import ConfigListing, cached_listing, keep_listing

    listing = cached_listing(source, text_hash)
    if listing is None:
        listing = ConfigListing.of(parse(text, source), text_hash)
        keep_listing(listing)
    return listing


def _tool_row(config: Config, alias: str, name: str, state: ToolState | None) -> dict[str, Any]:
    policy = config.servers[alias].tools[name]
    return _row(alias, name, policy.action, policy.effect, state)


def _row(
    alias: str, name: str, action: str | Literal[False], effect: str, state: ToolState | ListedState | None
) -> dict[str, Any]:
    """A tool's row (``action`` False: forbidden), as ``--json`` shows it."""
    return {
        "alias": alias,
        "tool": name,
        "local_name": f"mcp__{alias}__{name}",
        "action": action or None,
        "effect": "forbidden" if action is False else effect,
        "state": _status(action, state),
        "verdict": None if state is None else state.verdict,
        "reasons": [] if state is None else list(state.reasons),
        "pin": _pin(state),
        "write_approved_by": None if state is None else state.write_approved_by,
    }


def _status(action: str | Literal[False], state: ToolState | ListedState | None) -> str:
    if action is False:
        return "forbidden"
    if state is None:
        return "not imported"
    return "enabled" if state.enabled else "disabled"


def _pin(state: ToolState | ListedState | None) -> str:
    from toolpool.store._sqlite_read import pin_code

    return "-" if state is None else _PIN_CELLS[pin_code(state.approved_hash, state.current_hash)]


def _import_rows(
    config: Config, alias: str, store: Store, imported: list[ImportedTool], changed: set[str]
) -> list[dict[str, Any]]:
    states = {state.name: state for state in store.tools.tool_states(alias)}
    rows = []
    for tool in imported:
        row = _tool_row(config, alias, tool.name, states.get(tool.name))
        row["verdict"] = tool.verdict
        row["reasons"] = list(tool.reasons)
        if tool.name in changed:
            row["state"] += ", changed since approved"
        rows.append(row)
    return rows
