"""Gate 3's question — is this tool, and its server, enabled right now? — behind a seam.

The pool asks an ``Enablement`` at every call and for every snapshot. ``ConfigEnablement``
answers from the configuration (``enabled = true`` on a tool, with a write approval for a
``write`` tool) plus changes made at run time; the management plane's store answers the same
question from the database without any change to the pool.
"""

from __future__ import annotations

from typing import Protocol

from toolpool.config import Config, ToolPolicy
from toolpool.errors import PolicyRefusal, UsageError

__all__ = ["ConfigEnablement", "Enablement"]


class Enablement(Protocol):
    """Answers gate 3. ``version`` changes whenever any answer may have changed."""

    @property
    def version(self) -> int: ...

    def is_enabled(self, alias: str, remote_name: str) -> bool: ...


class ConfigEnablement:
    """Enablement from the configuration, with in-process ``enable``/``disable``."""

    def __init__(self, config: Config) -> None:
        self._config = config
        self._version = 0
        self._enabled: set[tuple[str, str]] = {
            (alias, name)
            for alias, spec in config.servers.items()
            if spec.enabled
            for name, policy in spec.tools.items()
            if policy.enabled
        }

    @property
    def version(self) -> int:
        return self._version

    def is_enabled(self, alias: str, remote_name: str) -> bool:
        return (alias, remote_name) in self._enabled

    def disable(self, alias: str, remote_name: str) -> None:
        """Disable a tool at once: snapshots drop it, calls in flight fail at gate 3."""
        self._policy(alias, remote_name)
        self._enabled.discard((alias, remote_name))
        self._version += 1

    def enable(self, alias: str, remote_name: str) -> None:
        """Enable a ``read`` tool; a ``write`` tool needs an approval in the config (R9).

        Raises:
            UsageError: the alias or tool is not in the configuration.
            PolicyRefusal: the tool is forbidden, or writes without an approval.
        """
        policy = self._policy(alias, remote_name)
        if policy.forbidden:
            raise PolicyRefusal(f"{alias}/{remote_name} is forbidden by policy (action = false)")
        if policy.effect == "write" and policy.write_approval is None:
            raise PolicyRefusal(f"{alias}/{remote_name} writes: it needs a write approval, not just enabling")
        if not self._config.servers[alias].enabled:
            raise PolicyRefusal(f"server {alias!r} is disabled in the configuration")
        self._enabled.add((alias, remote_name))
        self._version += 1

    def _policy(self, alias: str, remote_name: str) -> ToolPolicy:
        spec = self._config.servers.get(alias)
        if spec is None or remote_name not in spec.tools:
            raise UsageError(f"{alias}/{remote_name} is not in the configuration")
        return spec.tools[remote_name]
