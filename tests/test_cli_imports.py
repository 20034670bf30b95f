"""The command line starts light: ``--help`` (and every shell-completion keystroke, which runs
the same start) imports neither the store's database layer nor the configuration's models, and
the store's facade hands out each name from its own module when first asked."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import toolpool.store

_TIMEOUT_S = 60
# SQLAlchemy and the store's modules that use it, the configuration's models, the MCP SDK:
# together about a second of every command's start before they were imported lazily. (pydantic
# itself is not listed: typer imports it to show a command's help.)
_HEAVY = (
    "sqlalchemy",
    "mcp",
    "toolpool.config",
    "toolpool._config_server",
    "toolpool.store._store",
    "toolpool.pool",
)


def _modules_after(*argv: str) -> tuple[set[str], str]:
    """The modules a ``toolpool ARGV`` run in a fresh interpreter had imported when it ended."""
    probe = (
        "import atexit, json, sys\n"
        "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + json.dumps(sorted(sys.modules)) + '\\n'))\n"
        f"sys.argv = ['toolpool', *{list(argv)!r}]\n"
        "from toolpool.cli import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=_TIMEOUT_S, check=False
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stderr.rsplit("MODULES ", 1)[1])), done.stdout


def _heavy(modules: set[str]) -> list[str]:
    return sorted(name for name in modules if any(name == h or name.startswith(h + ".") for h in _HEAVY))


@pytest.mark.parametrize("argv", [("--help",), ("tools", "--help"), ("usage", "--help"), ("audit", "--help")])
def test_help_imports_neither_the_store_database_nor_the_config_models(argv: tuple[str, ...]) -> None:
    modules, shown = _modules_after(*argv)
    assert "Usage" in shown  # the probe saw the help it asked for
    assert "toolpool.cli._manage" in modules  # ... after every command was registered
    assert _heavy(modules) == []


def test_tools_from_the_kept_listing_never_imports_the_config_models(tmp_path: Path) -> None:
    config = tmp_path / "toolpool.toml"
    lines = ["[servers.alpha]", 'transport = "stdio"', 'command = "python"']
    lines += ["[servers.alpha.tools.lookup]", 'action = "alpha.lookup"', 'effect = "read"']
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    first, shown = _modules_after("tools", "--config", str(config))
    assert "alpha.lookup" in shown
    assert "toolpool._config_server" in first  # the first run validates the text (the control)
    again, shown = _modules_after("tools", "--config", str(config))
    assert "alpha.lookup" in shown
    # It did read the store: on the driver alone (store._sqlite_read), so without SQLAlchemy.
    assert "toolpool.store._sqlite_read" in again
    assert _heavy(again) == []


def test_usage_help_names_every_key_the_store_sums_by() -> None:
    _, shown = _modules_after("usage", "--help")
    flat = " ".join(shown.replace("│", " ").split())
    assert "Sum per principal, session, alias, tool, day" in flat
    assert tuple(toolpool.store.USAGE_KEYS) == ("principal", "session", "alias", "tool", "day")


def test_the_store_facade_gives_each_name_from_its_home_module() -> None:
    homes = toolpool.store._HOMES
    assert sorted(name for names in homes.values() for name in names) == sorted(toolpool.store.__all__)
    for module, names in homes.items():
        home = importlib.import_module(module)
        for name in names:
            assert getattr(toolpool.store, name) is getattr(home, name), name
    assert set(toolpool.store.__all__) <= set(dir(toolpool.store))


def test_the_store_facade_refuses_a_name_it_does_not_have() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        _ = toolpool.store.Nothing  # type: ignore[attr-defined]
