"""Without a framework installed, toolpool still imports, and its adapter says which extra to
install (in a fresh interpreter where the framework's packages cannot be found)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from toolpool.integrations import EXTRAS

HIDE = """
import importlib.abc, sys
class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"agents", "pydantic_ai", "langchain_core", "langgraph"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Hide())
import toolpool, toolpool.integrations
try:
    __import__(sys.argv[1])
except ImportError as exc:
    print(type(exc).__name__, isinstance(exc, toolpool.UsageError), exc)
"""


@pytest.mark.parametrize(("module", "extra"), sorted(EXTRAS.items()))
def test_an_adapter_without_its_framework_raises_an_import_error_naming_its_extra(
    module: str, extra: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", HIDE, module], capture_output=True, text=True, timeout=120, check=True
    )
    assert (
        done.stdout.strip()
        == f"MissingExtra True {module} needs its framework: pip install 'toolpool[{extra}]'"
    )
