"""The installed version, read from the package metadata that pyproject.toml's ``version`` makes."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

__all__ = ["__version__"]

try:
    __version__ = version("toolpool")
except PackageNotFoundError:  # a source tree on PYTHONPATH that was never installed
    __version__ = "0+unknown"
