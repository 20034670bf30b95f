"""``toolpool tokens``: bearer tokens for ``toolpool serve --http``.

A token is shown once, when it is made, and only its hash is stored. Each grants action globs
(as ``--allow`` for stdio) and resource globs, to the principal ``token:NAME``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from toolpool.cli._common import (
    DEFAULT_CONFIG,
    AsJson,
    ConfigPath,
    actor,
    app,
    load,
    open_store,
    out,
    print_json,
)

if TYPE_CHECKING:
    from toolpool.store import TokenHolder

__all__ = ["tokens_add", "tokens_list", "tokens_revoke"]

tokens_app = typer.Typer(help="Bearer tokens for `toolpool serve --http`.", no_args_is_help=True)
app.add_typer(tokens_app, name="tokens")

Name = Annotated[str, typer.Argument(help="The token's name; its calls are recorded as token:NAME.")]


@tokens_app.command("add")
def tokens_add(
    name: Name,
    allow: Annotated[
        list[str] | None, typer.Option("--allow", metavar="GLOB", help="An action the token grants (repeat).")
    ] = None,
    resource: Annotated[
        list[str] | None,
        typer.Option("--resource", metavar="GLOB", help="A resource it grants (repeat; default: any)."),
    ] = None,
    config: ConfigPath = DEFAULT_CONFIG,
    as_json: AsJson = False,
) -> None:
    """Make a token and print it, once: only its hash is kept."""
    loaded = load(config)
    with open_store(loaded) as store:
        token = store.tokens.add_token(name, allow or [], resource or ["*"], actor())
        holder = next(holder for holder in store.tokens.tokens() if holder.name == name)
    if as_json:
        print_json(_row(holder) | {"token": token})
        return
    sys.stderr.write(f"token {name!r} made; it is shown once, here, and cannot be shown again:\n")
    sys.stdout.write(token + "\n")


@tokens_app.command("list")
def tokens_list(config: ConfigPath = DEFAULT_CONFIG, as_json: AsJson = False) -> None:
    """List every token's name and grants (never a token)."""
    loaded = load(config)
    with open_store(loaded) as store:
        holders = store.tokens.tokens()
    if as_json:
        print_json([_row(holder) for holder in holders])
        return
    if not holders:
        out.print("no tokens", highlight=False)
        return
    table = Table("name", "actions", "resources", "created", "by")
    for holder in holders:
        table.add_row(
            holder.name,
            " ".join(holder.actions),
            " ".join(holder.resources),
            holder.created_at.isoformat(timespec="seconds"),
            holder.created_by,
        )
    out.print(table)


@tokens_app.command("revoke")
def tokens_revoke(name: Name, config: ConfigPath = DEFAULT_CONFIG, as_json: AsJson = False) -> None:
    """Revoke a token: the next request that presents it is refused."""
    loaded = load(config)
    with open_store(loaded) as store:
        store.tokens.revoke_token(name, actor())
    if as_json:
        print_json({"name": name, "revoked": True})
    else:
        out.print(f"token {name!r} revoked", highlight=False)


def _row(holder: TokenHolder) -> dict[str, Any]:
    return {
        "name": holder.name,
        "principal": holder.principal,
        "actions": list(holder.actions),
        "resources": list(holder.resources),
        "created_at": holder.created_at.isoformat(),
        "created_by": holder.created_by,
    }
