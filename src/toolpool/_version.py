"""The version: this literal is its one home (pyproject.toml reads it through hatchling's
``[tool.hatch.version]``), so importing toolpool never loads ``importlib.metadata`` (~30 ms)."""

from __future__ import annotations

__all__ = ["__version__"]

__version__ = "0.1.0"
