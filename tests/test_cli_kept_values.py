"""A large configuration's TOML values kept beside it (``cli._toml_kept``): the next command
reads them instead of the text only when they were kept for that very text, at that path, as
privately as the configuration, and validated; they are validated again as values read from
the text are, so the copy saves the reading and never a check."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import tomllib
from pathlib import Path
from typing import Any

import pytest

from toolpool.cli._beside import config_hash
from toolpool.cli._common import parse
from toolpool.cli._toml_kept import KEEP_FROM_BYTES, keep_toml, kept_toml
from toolpool.config import parse_config
from toolpool.errors import ConfigError


def _large_config(folder: Path, *, pool: str = "", command: str = "python") -> tuple[str, Path]:
    """A configuration of enough servers to be kept, its text and path."""
    lines = ["[pool]", pool]
    number = 0
    while sum(len(line) + 1 for line in lines) < KEEP_FROM_BYTES + 1024:
        lines += [
            f"[servers.s{number:05d}]",
            'transport = "stdio"',
            f'command = "{command}"',
            'args = ["-m", "demo", "--port", "7"]',
            f"[servers.s{number:05d}.tools.lookup]",
            f'action = "s{number:05d}.lookup"',
            'effect = "read"',
        ]
        number += 1
    path = folder / "toolpool.toml"
    text = "\n".join(lines) + "\n"
    path.write_text(text, encoding="utf-8")
    return text, path.resolve()


def _kept(path: Path) -> Path:
    return path.with_name(f".{path.name}.values")


def _rewrite(path: Path, change: Any) -> None:
    """Change the kept values with ``change`` and write them back under their body's true hash
    (as a believed file would be): only the spoil a test adds is wrong."""
    head_line, _, body = _kept(path).read_bytes().partition(b"\n")
    values = json.loads(body)
    change(values)
    new_body = json.dumps(values).encode()
    head = json.loads(head_line) | {"body": "sha256:" + hashlib.sha256(new_body).hexdigest()}
    _kept(path).write_bytes(json.dumps(head).encode() + b"\n" + new_body)


def _plant_command(values: dict[str, Any]) -> None:
    values["servers"]["s00000"]["command"] = "/tmp/planted"


def test_a_large_configuration_is_kept_after_it_validated_and_parses_to_the_same_config(
    tmp_path: Path,
) -> None:
    text, path = _large_config(tmp_path)
    first = parse(text, path)
    assert os.stat(_kept(path)).st_mode & 0o777 == 0o600
    again = parse(text, path)  # from the kept values
    assert first == again == parse_config(text, path)
    assert len(again.servers) > 1000


def test_kept_values_are_what_the_next_command_reads(tmp_path: Path) -> None:
    # The control for the tests below: a file written as the command writes it is believed.
    text, path = _large_config(tmp_path)
    parse(text, path)
    _rewrite(path, _plant_command)
    assert parse(text, path).servers["s00000"].command == "/tmp/planted"


@pytest.mark.parametrize(
    "spoil", ["another text", "group-readable", "symlink", "another path", "body hash", "cut short", "format"]
)
def test_kept_values_that_are_not_believed_are_ignored(tmp_path: Path, spoil: str) -> None:
    text, path = _large_config(tmp_path)
    parse(text, path)
    _rewrite(path, _plant_command)
    kept = _kept(path)
    head_line, _, body = kept.read_bytes().partition(b"\n")
    head = json.loads(head_line)
    if spoil == "another text":
        text, path = _large_config(tmp_path, pool="max_tools_per_server = 900")
    elif spoil == "group-readable":
        kept.chmod(0o640)
    elif spoil == "symlink":
        target = tmp_path / "elsewhere"
        kept.rename(target)
        kept.symlink_to(target)
    elif spoil == "another path":
        kept.write_bytes(json.dumps(head | {"source": str(tmp_path / "o.toml")}).encode() + b"\n" + body)
    elif spoil == "body hash":
        kept.write_bytes(json.dumps(head | {"body": "sha256:" + "0" * 64}).encode() + b"\n" + body)
    elif spoil == "cut short":
        kept.write_bytes(kept.read_bytes()[:-3])
    else:
        kept.write_bytes(json.dumps(head | {"format": "toolpool-toml-0"}).encode() + b"\n" + body)
    assert parse(text, path).servers["s00000"].command == "python"


def test_kept_values_are_validated_as_the_texts_are(tmp_path: Path) -> None:
    text, path = _large_config(tmp_path)
    parse(text, path)
    _rewrite(path, lambda values: values["servers"]["s00001"].update(transport="carrier-pigeon"))
    with pytest.raises(ConfigError, match="transport"):
        parse(text, path)


def test_a_configuration_that_does_not_validate_keeps_nothing(tmp_path: Path) -> None:
    text, path = _large_config(tmp_path, pool="no_such_setting = 1")
    with pytest.raises(ConfigError, match="no_such_setting"):
        parse(text, path)
    assert not _kept(path).exists()


def test_values_json_cannot_carry_exactly_are_not_kept(tmp_path: Path) -> None:
    # No setting takes a date, a time, inf or nan today (each is refused), so no configuration
    # that validates holds one; were one added, its values would be read from the text each time.
    text, path = _large_config(tmp_path)
    values = tomllib.loads(text)
    for odd in (dt.date(2026, 12, 7), dt.time(1, 2), float("inf"), float("nan")):
        keep_toml(path, config_hash(text), values | {"pool": {"when": odd}})
        assert not _kept(path).exists()
    keep_toml(path, config_hash(text), values)
    assert kept_toml(path, config_hash(text)) == values


def test_a_small_configuration_gets_no_file_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "toolpool.toml"
    text = '[servers.alpha]\ntransport = "stdio"\ncommand = "python"\n'
    path.write_text(text, encoding="utf-8")
    assert parse(text, path.resolve()).servers["alpha"].command == "python"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toolpool.toml"]
