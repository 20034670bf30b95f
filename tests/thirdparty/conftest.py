"""The example configs for the real third-party MCP servers, as loaded or derived in tests.

The servers are installed by ``scripts/bootstrap-tests``. When they are missing, a test that
asks for a config FAILS (never skips) and says so: CI installs them, and a silently skipped
test would hide a broken setup.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import server_table, write_config
from toolpool import Config, load_config

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
UPSTREAMS = ROOT / "upstreams"
NPM_SERVERS = UPSTREAMS / "node_modules" / "@modelcontextprotocol"

# What each example needs on disk besides its command.
_INSTALLED = {
    "everything": NPM_SERVERS / "server-everything" / "dist" / "index.js",
    "filesystem": NPM_SERVERS / "server-filesystem" / "dist" / "index.js",
    "memory": NPM_SERVERS / "server-memory" / "dist" / "index.js",
    "time": UPSTREAMS / ".venv-time" / "bin" / "mcp-server-time",
}


class Examples:
    """`examples/NAME.toml` as is, or a copy with some fields changed, written into a folder."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder

    def load(self, name: str) -> Config:
        """The example itself, loaded from `examples/` (its paths are relative to it), with its
        store moved into the test's folder so that runs never share management state."""
        require_installed(name)
        config = load_config(EXAMPLES / f"{name}.toml")
        store = f"sqlite:///{self._folder / 'toolpool.db'}"
        return config.model_copy(update={"pool": config.pool.model_copy(update={"store": store})})

    def derive(
        self,
        name: str,
        *,
        replace_args: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        without_tools: Sequence[str] = (),
        extra_tools: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> Config:
        """The example's single server with the given changes, written as a new config file.

        The child keeps the example's folder as its working directory, so the example's
        relative script paths still resolve; a relative ``command`` is made absolute.
        ``replace_args`` maps an argument of the example to its replacement (it must exist).
        """
        require_installed(name)
        raw = tomllib.loads((EXAMPLES / f"{name}.toml").read_text(encoding="utf-8"))
        ((alias, server),) = raw["servers"].items()
        published = server.pop("tools")
        assert set(without_tools) <= set(published), f"examples/{name}.toml lacks {without_tools}"
        tools = {tool: policy for tool, policy in published.items() if tool not in without_tools}
        tools.update(extra_tools or {})
        server.setdefault("cwd", str(EXAMPLES))
        if "/" in server["command"] and not server["command"].startswith("/"):
            server["command"] = str((EXAMPLES / server["command"]).resolve())
        if replace_args:
            missing = set(replace_args) - set(server["args"])
            assert not missing, f"examples/{name}.toml has no argument {sorted(missing)}"
            server["args"] = [replace_args.get(arg, arg) for arg in server["args"]]
        if env is not None:
            server["env"] = dict(env)
        return write_config(self._folder, server_table(alias, tools, **server), pool=raw.get("pool"))


def require_installed(name: str) -> None:
    """Fail the calling test, with what to run, if example `name`'s server is not installed."""
    needed = _INSTALLED[name]
    if not needed.exists():
        pytest.fail(
            f"{needed.relative_to(ROOT)} is missing: run scripts/bootstrap-tests to install the "
            "third-party MCP servers these tests use",
            pytrace=False,
        )
    command = load_config(EXAMPLES / f"{name}.toml").servers[name].command
    assert command is not None
    if not os.access(command, os.X_OK):
        pytest.fail(
            f"examples/{name}.toml runs {command}, which is not an executable here: "
            "run scripts/bootstrap-tests (it checks for Node.js >= 20 and installs the servers)",
            pytrace=False,
        )


@pytest.fixture
def examples(tmp_path: Path) -> Examples:
    """`examples.load(name)` / `examples.derive(name, ...)`; derived configs go into tmp_path."""
    return Examples(tmp_path)
