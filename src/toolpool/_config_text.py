"""Reading a configuration file's text, apart from the models that validate it: the CLI reads
the text first and often needs nothing else (``toolpool tools`` lists from the copy kept beside
it), so reading it must not import pydantic's models (``cli._common``)."""

from __future__ import annotations

from pathlib import Path

from toolpool.errors import ConfigError

__all__ = ["read_config"]


def read_config(path: str | Path) -> tuple[str, Path]:
    """A configuration file's text and its resolved path, for ``parse_config``.

    Raises:
        ConfigError: the file is missing, unreadable, or not UTF-8.
    """
    source = Path(path).resolve()
    try:
        return source.read_text(encoding="utf-8"), source
    except OSError as exc:
        raise ConfigError(str(path), "", f"cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(str(path), "", "is not UTF-8 text") from exc
