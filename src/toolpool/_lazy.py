"""A package facade whose names are imported when first used (PEP 562).

``toolpool tools`` lists a configuration without starting a pool; it should not pay for the
MCP SDK, the pool and the service just because a facade it passes through names them. A
facade built here keeps its ``__all__`` and its ``from package import Name`` use; each
module is imported the first time one of its names is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, homes: Mapping[str, tuple[str, ...]], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__``: ``homes`` maps each module to the public
    names it holds; ``namespace`` is the package's ``globals()``, where each name is kept once
    imported (later lookups never come back here)."""
    home_of = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name: str) -> Any:
        module = home_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *home_of})

    return __getattr__, __dir__
