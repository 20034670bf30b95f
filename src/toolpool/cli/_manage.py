"""Commands of the management plane: what exists, in which state."""

from __future__ import annotations

from rich.table import Table

from toolpool.cli._common import DEFAULT_CONFIG, AsJson, ConfigPath, app, load, out, print_json

__all__ = ["tools"]


@app.command()
def tools(config: ConfigPath = DEFAULT_CONFIG, as_json: AsJson = False) -> None:
    """List every tool the config names, with its local name, action, effect and state."""
    loaded = load(config)
    rows = [
        {
            "alias": alias,
            "tool": name,
            "local_name": f"mcp__{alias}__{name}",
            "action": policy.action if policy.action is not False else None,
            "effect": policy.effect,
            "state": "forbidden" if policy.forbidden else ("enabled" if policy.enabled else "disabled"),
        }
        for alias, spec in loaded.servers.items()
        for name, policy in spec.tools.items()
    ]
    if as_json:
        print_json(rows)
        return
    table = Table("alias", "tool", "action", "effect", "state")
    for row in rows:
        table.add_row(row["alias"], row["tool"], row["action"] or "-", row["effect"], row["state"])
    out.print(table)
