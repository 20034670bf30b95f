"""Gate 3's two answers (``toolpool.enablement.Enablement``): the configuration, or the store.

``ConfigEnablement`` answers from the configuration (``enabled = true`` on a tool, with a write
approval for a ``write`` tool) plus changes made at run time in this process;
``StoreEnablement`` answers from the store's memory of it (``store.cached``), which follows
every commit: another process's ``toolpool disable`` takes effect on the next call (SQLite),
or within a bounded time (PostgreSQL, see ``toolpool.store._enabled_cache``). Both enable by R9's table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolpool.enablement import Event, Refusal, standing_of, transition
from toolpool.errors import PolicyRefusal, UsageError
from toolpool.store._store import Store

if TYPE_CHECKING:  # the configuration's models: not imported with the store (cli._common)
    from toolpool.config import Config, ToolPolicy

__all__ = ["ConfigEnablement", "StoreEnablement"]


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
        if self._after(alias, remote_name, Event.DISABLE) is False:
            self._enabled.discard((alias, remote_name))
        self._version += 1

    def enable(self, alias: str, remote_name: str) -> None:
        """Enable a ``read`` tool; a ``write`` tool needs an approval in the config (R9).

        Raises:
            UsageError: the alias or tool is not in the configuration.
            PolicyRefusal: the tool is forbidden, or writes without an approval.
        """
        after = self._after(alias, remote_name, Event.ENABLE)
        if after is Refusal.FORBIDDEN:
            raise PolicyRefusal(f"{alias}/{remote_name} is forbidden by policy (action = false)")
        if after is Refusal.WRITE_NEEDS_APPROVAL:
            raise PolicyRefusal(f"{alias}/{remote_name} writes: it needs a write approval, not just enabling")
        if not self._config.servers[alias].enabled:
            raise PolicyRefusal(f"server {alias!r} is disabled in the configuration")
        self._enabled.add((alias, remote_name))
        self._version += 1

    def _after(self, alias: str, remote_name: str, event: Event) -> bool | Refusal:
        policy = self._policy(alias, remote_name)
        standing = standing_of(
            forbidden=policy.forbidden, effect=policy.effect, write_approved=policy.write_approval is not None
        )
        return transition(standing, event, self.is_enabled(alias, remote_name))

    def _policy(self, alias: str, remote_name: str) -> ToolPolicy:
        spec = self._config.servers.get(alias)
        if spec is None or remote_name not in spec.tools:
            raise UsageError(f"{alias}/{remote_name} is not in the configuration")
        return spec.tools[remote_name]


class StoreEnablement:
    """Gate 3 from the store; ``version`` (the release number) follows every change."""

    def __init__(self, store: Store) -> None:
        self._cached = store.cached

    @property
    def version(self) -> int:
        return self._cached.release

    def is_enabled(self, alias: str, remote_name: str) -> bool:
        return self._cached.is_enabled(alias, remote_name)
